//! The maximum-likelihood fit of a GLM by Newton's method (iteratively reweighted least squares)
//! and its Wald covariance, as statsmodels' `GLM(...).fit()` computes them: `(X^T W X)^{-1}` at the
//! estimate, times the Pearson scale `sum r_i^2 / (N - p)` for the linear model (whose scale is
//! estimated) and 1 for logistic and Poisson regression. The truths of the paper's figures ("fitted
//! with R glm") and the Wald baseline of the coverage study.

use crate::intervals::normal_quantile;
use crate::{Data, Glm, InferenceError, Model, model::Family};

/// A fitted GLM: the estimate and its Wald covariance (`p x p`, row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct GlmFit {
    /// The estimate.
    pub params: Vec<f64>,
    /// The Wald covariance.
    pub cov: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
}

impl GlmFit {
    /// The Wald intervals `params +- z_{(1 + level)/2} se` (`lower`, `upper`).
    pub fn wald(&self, level: f64) -> (Vec<f64>, Vec<f64>) {
        let z = normal_quantile((1.0 + level) / 2.0);
        let p = self.params.len();
        let se: Vec<f64> = (0..p).map(|j| self.cov[j * p + j].sqrt()).collect();
        (self.params.iter().zip(&se).map(|(m, s)| m - z * s).collect(), self.params.iter().zip(&se).map(|(m, s)| m + z * s).collect())
    }
}

/// Newton's method on the negative log-likelihood of `model` over `data` from the origin, with
/// step halving, until the Newton decrement `g^T H^-1 g` (twice the predicted decrease) is below
/// `1e-13 max(1, |L|)` or no step decreases the loss; then the Wald covariance.
pub fn fit_glm(model: &Glm, data: &Data) -> Result<GlmFit, InferenceError> {
    model.check(data)?;
    let (p, n) = (model.dim(), data.len());
    let total = |w: &[f64]| (0..n).map(|i| model.loss(w, data, i)).sum::<f64>();
    let mut w = vec![0.0; p];
    let (mut g, mut gi, mut h, mut hi) = (vec![0.0; p], vec![0.0; p], vec![0.0; p * p], vec![0.0; p * p]);
    let mut f = total(&w);
    for it in 0..200 {
        g.iter_mut().for_each(|v| *v = 0.0);
        h.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..n {
            model.grad(&w, data, i, &mut gi);
            model.hessian(&w, data, i, &mut hi);
            g.iter_mut().zip(&gi).for_each(|(a, b)| *a += b);
            h.iter_mut().zip(&hi).for_each(|(a, b)| *a += b);
        }
        let mut step = g.clone();
        if !gradfree_core::linalg::solve_dense(&mut h.clone(), p, &mut step) {
            return Err(InferenceError::SingularCovariance("the GLM's Hessian is singular (collinear features, or separable data)".into()));
        }
        // The Newton decrement g^T H^-1 g: half of it is the predicted decrease of the loss.
        let decrement: f64 = g.iter().zip(&step).map(|(a, b)| a * b).sum();
        if decrement <= 1e-13 * f.abs().max(1.0) || !decrement.is_finite() {
            return Ok(GlmFit { cov: wald_cov(model, data, &w, &h)?, params: w, iterations: it });
        }
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, s)| a - t * s).collect();
            let ft = total(&trial);
            if ft.is_finite() && ft < f {
                w = trial;
                f = ft;
                break;
            }
            t *= 0.5;
            if t < 1e-12 {
                return Ok(GlmFit { cov: wald_cov(model, data, &w, &h)?, params: w, iterations: it });
            }
        }
    }
    Err(InferenceError::BadData("Newton's method did not converge in 200 steps (separable data?)".into()))
}

/// `H^{-1}` (the Hessian of the summed loss, symmetric), times the Pearson scale for the linear
/// model.
fn wald_cov(model: &Glm, data: &Data, w: &[f64], h: &[f64]) -> Result<Vec<f64>, InferenceError> {
    let (p, n) = (model.dim(), data.len());
    let scale = if model.family == Family::Linear {
        let rss: f64 = (0..n).map(|i| 2.0 * model.loss(w, data, i)).sum();
        rss / (n.saturating_sub(p).max(1)) as f64
    } else {
        1.0
    };
    let mut cov = vec![0.0; p * p];
    for j in 0..p {
        let mut e = vec![0.0; p];
        e[j] = 1.0;
        if !gradfree_core::linalg::solve_dense(&mut h.to_vec(), p, &mut e) {
            return Err(InferenceError::SingularCovariance("the GLM's Hessian is singular at the estimate".into()));
        }
        (0..p).for_each(|i| cov[i * p + j] = scale * e[i]);
    }
    Ok(cov)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_fit_is_least_squares_with_the_classical_covariance() {
        // y = 1 + 2x exactly plus fixed residuals.
        let xs = [0.0, 1.0, 2.0, 3.0, 4.0];
        let res = [0.1, -0.2, 0.0, 0.2, -0.1];
        let x: Vec<f64> = xs.iter().flat_map(|&v| [1.0, v]).collect();
        let y: Vec<f64> = xs.iter().zip(res).map(|(v, r)| 1.0 + 2.0 * v + r).collect();
        let fit = fit_glm(&Glm::new(Family::Linear, 2), &Data::new(x, 2, y).unwrap()).unwrap();
        // Least squares by hand: slope = Sxy / Sxx, Sxx = 10.
        let slope = 2.0 + xs.iter().zip(res).map(|(v, r)| (v - 2.0) * r).sum::<f64>() / 10.0;
        assert!((fit.params[1] - slope).abs() < 1e-12, "{:?}", fit.params);
        let rss: f64 = xs.iter().zip(res).map(|(v, r)| r - (slope - 2.0) * (v - 2.0)).map(|e| e * e).sum();
        assert!((fit.cov[3] - rss / 3.0 / 10.0).abs() < 1e-12, "var(slope) = s^2 / Sxx");
    }
}
