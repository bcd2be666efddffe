//! The two-layer ReLU network of Liang & Su sec. 7 and App. C: `f_w(x) = relu(1 + W2 relu(1 + W1
//! x))` with `W1` (`k x d`) and `W2` (`1 x k`); the constant 1 in each layer is not trained (it
//! breaks ReLU's scaling symmetry, App. C). Square loss `l(w, (x, y)) = (y - f_w(x))^2 / 2`;
//! gradients by back-propagation. Parameters are `W1` row-major, then `W2`: `p = k d + k`.

use super::Model;
use crate::{Data, InferenceError};

/// A network with `k` hidden units on `d` inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReluNet {
    /// Inputs `d`.
    pub d: usize,
    /// Hidden units `k`.
    pub k: usize,
}

impl ReluNet {
    /// A network with `k >= 1` hidden units on `d >= 1` inputs.
    pub fn new(d: usize, k: usize) -> Result<Self, InferenceError> {
        if d == 0 {
            return Err(InferenceError::invalid("inputs", 0, ">= 1"));
        }
        if k == 0 {
            return Err(InferenceError::invalid("hidden", 0, ">= 1"));
        }
        // p = k d + k parameters, each with a name: refuse what cannot be counted or held.
        let p = k.checked_mul(d).and_then(|kd| kd.checked_add(k));
        let bytes = p.map_or(u128::MAX, |p| p as u128 * 64);
        gradfree_core::memory::check_param_bytes("hidden", k, &format!("a network of {k} hidden units on {d} inputs"), bytes)?;
        Ok(ReluNet { d, k })
    }

    /// `f_w(x)`.
    pub fn predict(&self, w: &[f64], x: &[f64]) -> f64 {
        let (w1, w2) = w.split_at(self.k * self.d);
        let o = 1.0 + w1.chunks_exact(self.d).zip(w2).map(|(row, v)| v * (1.0 + dot(row, x)).max(0.0)).sum::<f64>();
        o.max(0.0)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Model for ReluNet {
    /// Distinct hidden units: `W1` entries `N(0, 1/d)`, `W2` entries `N(0, 1/k)` (the usual
    /// fan-in scaling), from a fixed seed, so the run's result depends on its own seed only.
    fn default_start(&self, _data: &Data) -> Option<Vec<f64>> {
        use rand_distr::{Distribution, StandardNormal};
        let mut rng = gradfree_core::rng_from_seed(0x005e_ed0f_4e11);
        let (d, k) = (self.d as f64, self.k as f64);
        Some(
            (0..self.dim())
                .map(|i| {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    z / if i < self.k * self.d { d.sqrt() } else { k.sqrt() }
                })
                .collect(),
        )
    }

    fn name(&self) -> &'static str {
        "relu"
    }

    fn dim(&self) -> usize {
        self.k * self.d + self.k
    }

    fn size_param(&self) -> (&'static str, String) {
        ("hidden", self.k.to_string())
    }

    fn check(&self, data: &Data) -> Result<(), InferenceError> {
        if data.dim() != self.d {
            return Err(InferenceError::BadData(format!("the data have {} features; the network has {} inputs", data.dim(), self.d)));
        }
        if !data.has_responses() {
            return Err(InferenceError::BadData("the network needs a response per row".into()));
        }
        Ok(())
    }

    fn loss(&self, w: &[f64], data: &Data, i: usize) -> f64 {
        let r = self.predict(w, data.row(i)) - data.response(i);
        0.5 * r * r
    }

    fn grad(&self, w: &[f64], data: &Data, i: usize, out: &mut [f64]) {
        let (x, d, k) = (data.row(i), self.d, self.k);
        let (w1, w2) = w.split_at(k * d);
        let (g1, g2) = out.split_at_mut(k * d);
        // Forward: hidden pre-activations a_j = 1 + W1_j x, output o = 1 + sum_j W2_j relu(a_j).
        let mut o = 1.0;
        for (j, row) in w1.chunks_exact(d).enumerate() {
            let a = 1.0 + dot(row, x);
            g2[j] = a.max(0.0);
            o += w2[j] * g2[j];
        }
        // Backward: dl/do = (f - y) 1[o > 0].
        let r = if o > 0.0 { o - data.response(i) } else { 0.0 };
        for (j, grow) in g1.chunks_exact_mut(d).enumerate() {
            let active = g2[j] > 0.0;
            let c = if active { r * w2[j] } else { 0.0 };
            grow.iter_mut().zip(x).for_each(|(g, xl)| *g = c * xl);
        }
        g2.iter_mut().for_each(|h| *h *= r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::gradient_matches_differences;

    #[test]
    fn backpropagation_matches_differences() {
        let net = ReluNet::new(2, 3).unwrap();
        assert_eq!(net.dim(), 9);
        let d = Data::new(vec![0.3, -0.5, 1.2, 0.4, -0.8, 0.9], 2, vec![1.7, 0.2, 2.5]).unwrap();
        net.check(&d).unwrap();
        // Weights with every unit active or clearly inactive (no kink within the difference step).
        let w = [0.5, -0.2, -2.0, 0.1, 0.3, 0.8, 0.7, 1.1, -0.4];
        gradient_matches_differences(&net, &w, &d, 1e-6);
        // Hand-computed forward pass at x = (0.3, -0.5).
        let h: [f64; 3] = [1.0 + 0.15 + 0.1, 1.0 - 0.6 - 0.05, 1.0 + 0.09 - 0.4];
        let want = (1.0 + 0.7 * h[0] + 1.1 * h[1] - 0.4 * h[2]).max(0.0);
        assert!((net.predict(&w, d.row(0)) - want).abs() < 1e-12);
    }
}
