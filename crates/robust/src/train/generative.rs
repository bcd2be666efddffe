//! Learning the inverse CDF of the encoder (thesis sec. 5.7): instead of a Gaussian `q(z|x)`, the
//! encoder is `F(eps, x) = G1(x) + G2(eps)` with `eps` uniform on `[0, 1]^k` (the form of sec. 5.8),
//! so the reconstruction term (5.28-5.29) is an integral over the unit cube, here approximated by
//! points of a subgroup rank-1 lattice with `n = 12k + 1` (eq. 5.3, 5.26; point `i` drawn
//! uniformly and computed on demand, never stored) or by i.i.d. uniform points. The prior term is
//! the maximum mean discrepancy between the codes and `N(0, I)` draws (sec. 5.7 allows it in place
//! of the KL term), with the inverse multiquadratic kernel `C / (C + ||a - b||^2)`, `C = 2k`, and
//! weight 10 (Tolstikhin et al., "Wasserstein auto-encoders", ICLR 2018, MNIST settings).
//! Decoder: logits of Bernoulli pixels (binary cross-entropy). `G1`, `G2` and the decoder are
//! perceptrons with one hidden layer.

use burn::prelude::*;
use burn::tensor::TensorData;
use burn::tensor::activation::{sigmoid, softplus};
use gradfree_core::{GfRng, derive_seed, rng_from_seed};
use gradfree_qmc::lattice::Rank1Lattice;
use rand::RngExt;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::net::{Arch, Net};
use super::optim::{OptimizerSpec, OptimizerState};
use super::trainer::device;
use crate::error::{Result, RobustError};

/// Where `eps` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EpsSampler {
    /// Points of the subgroup rank-1 lattice with `n = 12k + 1` (a prime), index uniform.
    Lattice,
    /// i.i.d. uniform on `[0, 1]^k`.
    Iid,
}

/// An autoencoder run. Missing fields take the defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AeSpec {
    /// `k`, the code dimension (`12k + 1` must be a prime: 6, 8, 16, 20, 28, ...).
    pub latent: usize,
    /// Hidden width of `G1` and the decoder (`G2` has 64).
    pub hidden: usize,
    /// The sampler of `eps`.
    pub sampler: EpsSampler,
    /// Weight of the MMD prior term.
    pub prior_weight: f64,
    /// Batch size.
    pub batch_size: usize,
    /// Adam's learning rate.
    pub lr: f64,
    /// Seed of the initialization, data order, `eps` and prior draws.
    pub seed: u64,
}

impl Default for AeSpec {
    fn default() -> Self {
        AeSpec { latent: 16, hidden: 256, sampler: EpsSampler::Lattice, prior_weight: 10.0, batch_size: 128, lr: 1e-3, seed: 0 }
    }
}

/// One epoch's training losses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AeEpoch {
    /// Mean binary cross-entropy per image (nats).
    pub reconstruction: f64,
    /// Mean MMD between a batch's codes and prior draws.
    pub mmd: f64,
}

/// The autoencoder as a state machine: [`Autoencoder::epoch`] trains one epoch.
pub struct Autoencoder {
    spec: AeSpec,
    d: usize,
    nets: Vec<Net>,
    params: [Vec<f32>; 3],
    optim: [OptimizerState; 3],
    lattice: Option<Rank1Lattice>,
    rng: GfRng,
    device: Device,
}

impl Autoencoder {
    /// A fresh model for rows of `d` values in `[0, 1]`.
    pub fn new(spec: AeSpec, d: usize) -> Result<Self> {
        let k = spec.latent;
        if k == 0 || !gradfree_qmc::numtheory::is_prime(12 * k as u64 + 1) {
            return Err(RobustError::invalid("latent", k, "a code dimension k with 12k + 1 prime (6, 8, 16, 20, 28, ...)"));
        }
        if d == 0 {
            return Err(RobustError::bad("the rows have no features (d = 0)"));
        }
        if spec.hidden == 0 {
            return Err(RobustError::invalid("hidden", spec.hidden, "an integer >= 1"));
        }
        if spec.batch_size < 2 {
            return Err(RobustError::invalid("batch_size", spec.batch_size, "an integer >= 2 (the MMD needs pairs)"));
        }
        if !(spec.prior_weight.is_finite() && spec.prior_weight >= 0.0) {
            return Err(RobustError::invalid("prior_weight", spec.prior_weight, "a finite number >= 0"));
        }
        if !(spec.lr.is_finite() && spec.lr > 0.0) {
            return Err(RobustError::invalid("lr", spec.lr, "a finite number > 0"));
        }
        let device = device();
        let mut init = rng_from_seed(derive_seed(spec.seed, 0xae));
        let nets = vec![
            Net::new(&Arch::Mlp { hidden: vec![spec.hidden] }, d, k, &device, &mut init),
            Net::new(&Arch::Mlp { hidden: vec![64] }, k, k, &device, &mut init),
            Net::new(&Arch::Mlp { hidden: vec![spec.hidden] }, k, d, &device, &mut init),
        ];
        let params = [nets[0].params(), nets[1].params(), nets[2].params()];
        let adam = OptimizerSpec::Adam { lr: spec.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
        let optim = [
            OptimizerState::new(&adam, params[0].len()),
            OptimizerState::new(&adam, params[1].len()),
            OptimizerState::new(&adam, params[2].len()),
        ];
        let lattice = match spec.sampler {
            EpsSampler::Lattice => {
                Some(gradfree_qmc::lattice::subgroup(k, 12 * k as u64 + 1).map_err(|e| RobustError::bad(e.to_string()))?)
            }
            EpsSampler::Iid => None,
        };
        let rng = rng_from_seed(derive_seed(spec.seed, 0xda7a));
        Ok(Autoencoder { spec, d, nets, params, optim, lattice, rng, device })
    }

    /// `b` values of `eps` (row-major `b x k`) from the sampler.
    fn eps(&self, b: usize, rng: &mut GfRng) -> Vec<f32> {
        let k = self.spec.latent;
        let mut out = vec![0.0f64; b * k];
        match &self.lattice {
            Some(l) => {
                for row in out.chunks_exact_mut(k) {
                    l.point_into(rng.random_range(0..l.n()), row);
                }
            }
            None => out.iter_mut().for_each(|v| *v = rng.random::<f64>()),
        }
        out.into_iter().map(|v| v as f32).collect()
    }

    fn tensor(&self, v: Vec<f32>, rows: usize, cols: usize, device: &Device) -> Tensor<2> {
        Tensor::<2>::from_data(TensorData::new(v, [rows, cols]), device)
    }

    /// Codes `F(eps, x)` and decoder logits on `device`.
    fn forward(&self, nets: &[Net], x: Tensor<2>, eps: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let code = nets[0].forward(x) + nets[1].forward(eps);
        let logits = nets[2].forward(code.clone());
        (code, logits)
    }

    /// Trains one epoch on the rows `x` (values in `[0, 1]`).
    pub fn epoch(&mut self, x: &[f32]) -> Result<AeEpoch> {
        let (d, k, m) = (self.d, self.spec.latent, self.spec.batch_size);
        if x.is_empty() || !x.len().is_multiple_of(d) || x.iter().any(|v| !(0.0..=1.0).contains(v)) {
            return Err(RobustError::bad(format!("X must be rows of {d} values in [0, 1]")));
        }
        let n = x.len() / d;
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = self.rng.clone();
        order.shuffle(&mut rng);
        let adam = OptimizerSpec::Adam { lr: self.spec.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
        let (mut rec_sum, mut mmd_sum, mut batches) = (0.0, 0.0, 0usize);
        let mut grad = Vec::new();
        for chunk in order.chunks(m).filter(|c| c.len() >= 2) {
            let b = chunk.len();
            let xb: Vec<f32> = chunk.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect();
            let xt = self.tensor(xb, b, d, &self.device);
            let eps = self.eps(b, &mut rng);
            let prior: Vec<f32> =
                (0..b * k).map(|_| StandardNormal.sample(&mut rng)).collect::<Vec<f64>>().into_iter().map(|v| v as f32).collect();
            let (code, logits) = self.forward(&self.nets, xt.clone(), self.tensor(eps, b, k, &self.device));
            // BCE with logits, summed over pixels: softplus(l) - x l.
            let rec = (softplus(logits.clone(), 1.0) - xt * logits).sum().div_scalar(b as f32);
            let mmd = imq_mmd(code, self.tensor(prior, b, k, &self.device), k);
            let loss = rec.clone() + mmd.clone().mul_scalar(self.spec.prior_weight as f32);
            rec_sum += f64::from(rec.into_scalar::<f32>());
            mmd_sum += f64::from(mmd.into_scalar::<f32>());
            batches += 1;
            let grads = loss.backward();
            for j in 0..3 {
                self.nets[j].grads_into(&grads, &mut grad);
                self.optim[j].step(&adam, &mut self.params[j], &grad, self.spec.lr, 0.9);
            }
            for j in 0..3 {
                let net = self.nets.remove(j);
                self.nets.insert(j, net.with_params(&self.params[j], &self.device));
            }
        }
        if self.params.iter().flatten().any(|v| !v.is_finite()) {
            return Err(RobustError::bad("the autoencoder's parameters are no longer finite (diverged; lower lr)"));
        }
        self.rng = rng;
        Ok(AeEpoch { reconstruction: rec_sum / batches.max(1) as f64, mmd: mmd_sum / batches.max(1) as f64 })
    }

    /// Mean binary cross-entropy per image of the rows `x`, `eps` from the sampler seeded by
    /// `seed` (the same draws at every call).
    pub fn reconstruction(&self, x: &[f32], seed: u64) -> Result<f64> {
        let (d, k) = (self.d, self.spec.latent);
        let inner = self.device.clone().inner();
        let nets: Vec<Net> = self.nets.iter().map(|n| n.clone().valid()).collect();
        let mut rng = rng_from_seed(seed);
        let (mut total, mut rows) = (0.0, 0usize);
        for block in x.chunks(1000 * d) {
            let b = block.len() / d;
            let xt = self.tensor(block.to_vec(), b, d, &inner);
            let eps = self.eps(b, &mut rng);
            let (_, logits) = self.forward(&nets, xt.clone(), self.tensor(eps, b, k, &inner));
            total += f64::from((softplus(logits.clone(), 1.0) - xt * logits).sum().into_scalar::<f32>());
            rows += b;
        }
        Ok(total / rows.max(1) as f64)
    }

    /// The decoded images (pixel means, `rows x d`) of the codes `z` (`rows x k`, e.g. prior draws).
    pub fn decode(&self, z: &[f32]) -> Result<Vec<f32>> {
        let k = self.spec.latent;
        if z.is_empty() || !z.len().is_multiple_of(k) {
            return Err(RobustError::bad(format!("codes must be rows of k = {k} values")));
        }
        let inner = self.device.clone().inner();
        let dec = self.nets[2].clone().valid();
        let out = sigmoid(dec.forward(self.tensor(z.to_vec(), z.len() / k, k, &inner))).into_data().convert::<f32>();
        Ok(out.as_slice::<f32>().map_err(|e| RobustError::bad(format!("{e:?}")))?.to_vec())
    }

    /// The code dimension `k`.
    pub fn latent(&self) -> usize {
        self.spec.latent
    }
}

/// The (biased, V-statistic) MMD^2 between the rows of `a` and `b` under the inverse
/// multiquadratic kernel `C / (C + ||x - y||^2)`, `C = 2k`.
fn imq_mmd(a: Tensor<2>, b: Tensor<2>, k: usize) -> Tensor<1> {
    let c = 2.0 * k as f32;
    let gram = |x: Tensor<2>, y: Tensor<2>| {
        let xx = x.clone().powf_scalar(2.0).sum_dim(1);
        let yy = y.clone().powf_scalar(2.0).sum_dim(1).transpose();
        let d2 = xx + yy - x.matmul(y.transpose()).mul_scalar(2.0);
        d2.add_scalar(c).recip().mul_scalar(c).mean()
    };
    gram(a.clone(), a.clone()) + gram(b.clone(), b.clone()) - gram(a, b).mul_scalar(2.0)
}
