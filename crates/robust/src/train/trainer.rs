//! The training loop as a state machine: [`Trainer::run_epoch`] runs one epoch of a [`Method`]
//! and returns its [`EpochRecord`]; printing, logs, progress and checkpoints live with the caller.
//! The whole state ([`TrainerState`]: flat parameters, optimizer moments, the data-order
//! generator, the history) serializes, so a run resumed between epochs is bit-identical to one
//! that never stopped.

use burn::prelude::*;
use burn::tensor::TensorData;
use gradfree_core::{GfRng, StateCheck, derive_seed, rng_from_seed};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::front::{Front, FrontPass, FrontSpec};
use super::method::Method;
use super::net::{Arch, Net, cnn_side};
use super::optim::{OptimizerSpec, OptimizerState, Schedule};
use crate::curriculum::Threshold;
use crate::error::{Result, RobustError};
use crate::hinge;
use crate::noise::check_labels;
use crate::selection::Selector;

/// The side of a square image of `d` pixels, if the rows are square images.
pub fn image_side(d: usize) -> Option<usize> {
    let s = (d as f64).sqrt().round() as usize;
    (s * s == d && s >= 2).then_some(s)
}

/// One training run: network, method, optimizer and data order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainSpec {
    /// The network.
    pub arch: Arch,
    /// The method (loss and selection).
    pub method: Method,
    /// The optimizer.
    pub optimizer: OptimizerSpec,
    /// The learning-rate plan; `None` is Co-teaching's plan for `epochs` ([`Schedule::co_teaching`]).
    pub schedule: Option<Schedule>,
    /// Epochs.
    pub epochs: usize,
    /// Mini-batch size `m` (128 in the thesis).
    pub batch_size: usize,
    /// Seed of the initialization and the data order.
    pub seed: u64,
    /// A filter or NOK block in front of the first learnable layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<FrontSpec>,
}

impl TrainSpec {
    /// A run of `method` with the thesis' settings: the MLP, Adam at 1e-3 on Co-teaching's plan,
    /// batches of 128.
    pub fn new(method: Method, epochs: usize, seed: u64) -> Self {
        TrainSpec { arch: Arch::mlp(), method, optimizer: OptimizerSpec::ADAM, schedule: None, epochs, batch_size: 128, seed, front: None }
    }

    /// The learning-rate plan in force.
    pub fn schedule(&self) -> Schedule {
        self.schedule.unwrap_or_else(|| Schedule::co_teaching(self.epochs))
    }

    /// Checks every setting for data of `d` features.
    pub fn check(&self, d: usize) -> Result<()> {
        self.method.check()?;
        self.optimizer.check()?;
        if self.batch_size == 0 {
            return Err(RobustError::invalid("batch_size", 0, "an integer >= 1"));
        }
        if self.epochs == 0 || self.epochs > MAX_EPOCHS {
            return Err(RobustError::invalid("epochs", self.epochs, format!("an integer in 1..={MAX_EPOCHS}")));
        }
        if let Some(front) = &self.front {
            front.check(image_side(d), Net::conv1(&self.arch))?;
        }
        match &self.arch {
            Arch::Cnn if cnn_side(d).is_none() => Err(RobustError::invalid(
                "model",
                "cnn",
                format!("square images whose side is a multiple of 4 (d = 64, 784, ...); these rows have {d} features"),
            )),
            Arch::Mlp { hidden } if hidden.contains(&0) => Err(RobustError::invalid("hidden", 0, "layer widths >= 1")),
            _ => Ok(()),
        }
    }
}

/// The most epochs a run takes (a run of more would not end in any useful time, and its history
/// grows with them).
pub const MAX_EPOCHS: usize = 100_000;

impl TrainSpec {
    /// The memory of a run on `n` rows of `d` features with `k` classes, as terms each driven by
    /// one setting ([`gradfree_core::memory::Footprint`]): every network's parameters with their
    /// gradients, optimizer moments and checkpoint text (`hidden`), and a mini-batch's activations
    /// forward and backward (`batch_size`, at most the `n` rows). Checked before anything is
    /// allocated.
    pub fn footprint(&self, d: usize, n: usize, k: usize) -> gradfree_core::memory::Footprint {
        use gradfree_core::memory::product;
        let nets = self.method.networks() as u128;
        let (d128, k128) = (d as u128, k as u128);
        let m = self.batch_size.min(n.max(1)) as u128;
        let (params, width) = match &self.arch {
            Arch::Mlp { hidden } => {
                let mut sizes = vec![d128];
                sizes.extend(hidden.iter().map(|&h| h as u128));
                sizes.push(k128);
                let params = sizes.windows(2).fold(0u128, |a, w| a.saturating_add(product(&[w[0] + 1, w[1]])));
                (params, sizes.iter().fold(0u128, |a, s| a.saturating_add(*s)))
            }
            Arch::Cnn => {
                let side = (d as f64).sqrt() as u128;
                let flat = product(&[side / 4, side / 4, 64]);
                let params = (32 * 10 + 64 * (32 * 9 + 1)) as u128 + product(&[flat + 1, 128]) + 129 * k128;
                (params, product(&[side, side, 32]).saturating_add(product(&[side / 2, side / 2, 64])).saturating_add(flat + 128 + k128))
            }
        };
        let mut f = gradfree_core::memory::Footprint::new();
        let hidden = match &self.arch {
            Arch::Mlp { hidden } => hidden.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(","),
            Arch::Cnn => "cnn".into(),
        };
        // Parameters, gradients, two moments and burn's copies in f32; the checkpoint's text.
        f.bytes("hidden", hidden.clone(), format!("{nets} network(s) of {params} parameters"), product(&[nets, params, 8 * 4 + 24]));
        // Activations grow with the batch and with the widths: blame whichever is further above
        // its default (128 rows; the MLP's 256 + 256 units).
        let wide = width as f64 / (512 + d + k) as f64 > m as f64 / 128.0;
        let (name, value) = if wide { ("hidden", hidden) } else { ("batch_size", self.batch_size.to_string()) };
        f.bytes(
            name,
            value,
            format!("the activations of mini-batches of {m} rows"),
            product(&[nets, m, width.saturating_add(d128), 6 * 4]),
        );
        f
    }
}

/// Training rows: row-major `n x d` features and labels (possibly noisy) in `0..k`; the clean
/// labels, where known, give the label precision; per-row weights, where given.
#[derive(Clone, Copy, Debug)]
pub struct TrainSet<'a> {
    /// Features.
    pub x: &'a [f32],
    /// Features per row.
    pub d: usize,
    /// The labels trained on.
    pub labels: &'a [u32],
    /// The true labels, if known (benchmarks with injected noise).
    pub clean: Option<&'a [u32]>,
    /// Classes.
    pub k: usize,
    /// Sample weights `w_i >= 0` (`None`: all 1), as scikit-learn's `sample_weight`: each step
    /// minimizes `sum_i w_i l_i / sum_i w_i` over the rows it uses (instead of their mean), the
    /// selections count weight instead of rows (NPCL's threshold (8.21) with `m` and the
    /// misclassified count as weights, Algorithm 13 with [`Selector::select_weighted`],
    /// Co-teaching's kept fraction by weight), and the epoch's metrics are weighted. Rows of
    /// weight 0 are left out of the data order altogether, so a run with them is the run
    /// without them, bit for bit; multiplying every weight by the same factor changes nothing.
    pub weights: Option<&'a [f64]>,
}

impl TrainSet<'_> {
    /// Checks shapes, values and labels, naming the argument at fault.
    pub fn check(&self) -> Result<()> {
        let n = self.labels.len();
        if n == 0 || self.d == 0 {
            return Err(RobustError::bad(format!("X is empty ({n} rows of {} features): need at least one row and one feature", self.d)));
        }
        if self.x.len() != n * self.d {
            return Err(RobustError::bad(format!(
                "X has {} values, not {n} rows x {} features: X and y disagree in length",
                self.x.len(),
                self.d
            )));
        }
        if let Some(i) = self.x.iter().position(|v| !v.is_finite()) {
            return Err(RobustError::bad(format!("X[{}, {}] = {}: features must be finite", i / self.d, i % self.d, self.x[i])));
        }
        if self.k < 2 {
            return Err(RobustError::invalid("classes", self.k, "at least 2 classes"));
        }
        check_labels("y", self.labels, self.k)?;
        if let Some(w) = self.weights {
            if w.len() != n {
                return Err(RobustError::bad(format!("sample_weight has {} entries for {n} rows: one weight per row", w.len())));
            }
            if let Some((i, v)) = w.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
                return Err(RobustError::invalid("sample_weight", format!("{v} (row {i})"), "finite weights >= 0"));
            }
            let total: f64 = w.iter().sum();
            if !(total > 0.0 && total.is_finite()) {
                return Err(RobustError::invalid(
                    "sample_weight",
                    format!("weights summing to {total}"),
                    "at least one weight > 0 (and a finite sum)",
                ));
            }
        }
        if let Some(c) = self.clean {
            if c.len() != n {
                return Err(RobustError::bad(format!("{} clean labels for {n} rows", c.len())));
            }
            check_labels("clean labels", c, self.k)?;
        }
        Ok(())
    }
}

/// A training set as its weighted sample of distinct rows ([`collapse_rows`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Collapsed {
    /// The distinct rows, row-major, in a canonical order (by feature bits, then label).
    pub x: Vec<f32>,
    /// Their labels.
    pub labels: Vec<u32>,
    /// Their weights: the sum of the weights of the rows equal to each (1 per copy without
    /// weights); all positive.
    pub weights: Vec<f64>,
    /// For every input row, the distinct row it became (`None` for rows of weight 0).
    pub row_of: Vec<Option<usize>>,
}

impl Collapsed {
    /// As a [`TrainSet`] (weights `None` when every weight is exactly 1, the unweighted run).
    pub fn set(&self, d: usize, k: usize) -> TrainSet<'_> {
        let weights = if self.weights.iter().all(|w| *w == 1.0) { None } else { Some(&self.weights[..]) };
        TrainSet { x: &self.x, d, labels: &self.labels, clean: None, k, weights }
    }
}

/// The weighted empirical distribution of `data` in a canonical form: rows of weight 0 dropped,
/// identical `(features, label)` rows (bit for bit) merged into one whose weight is their sum,
/// and the distinct rows sorted (by their features' bits, then the label). A run on the result
/// depends on the data only through `sum_i w_i delta(x_i, y_i)`, as scikit-learn's
/// `sample_weight` semantics ask: an integer weight is exactly that many copies of the row, a
/// zero weight is exactly the row left out, and the order of the rows does not matter. `data`
/// must have passed [`TrainSet::check`].
pub fn collapse_rows(data: &TrainSet) -> Collapsed {
    let (d, n) = (data.d, data.labels.len());
    let weight = |i: usize| data.weights.map_or(1.0, |w| w[i]);
    let row = |i: usize| &data.x[i * d..(i + 1) * d];
    let mut order: Vec<usize> = (0..n).filter(|&i| weight(i) > 0.0).collect();
    let cmp = |a: usize, b: usize| {
        row(a)
            .iter()
            .zip(row(b))
            .map(|(u, v)| u.total_cmp(v))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(data.labels[a].cmp(&data.labels[b]))
    };
    order.sort_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    let mut out = Collapsed { x: Vec::new(), labels: Vec::new(), weights: Vec::new(), row_of: vec![None; n] };
    let mut last: Option<usize> = None;
    for i in order {
        if last.is_none_or(|j| cmp(i, j).is_ne()) {
            out.x.extend_from_slice(row(i));
            out.labels.push(data.labels[i]);
            out.weights.push(0.0);
            last = Some(i);
        }
        let u = out.labels.len() - 1;
        out.weights[u] += weight(i);
        out.row_of[i] = Some(u);
    }
    out
}

/// One epoch's metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochRecord {
    /// Epoch number, starting at 1.
    pub epoch: usize,
    /// Mean over the batches of the minimized loss.
    pub train_loss: f64,
    /// Accuracy on the training labels (noisy where the labels are).
    pub train_accuracy: f64,
    /// Test accuracy after the epoch (network 1 for Co-teaching), if a test set was given.
    pub test_accuracy: Option<f64>,
    /// `#clean selected / #selected` over the epoch, where clean labels are known.
    pub label_precision: Option<f64>,
    /// Fraction of the samples the steps used.
    pub selected_fraction: f64,
    /// Learning rate of the epoch.
    pub lr: f64,
    /// Seconds the epoch took (training and test).
    pub seconds: f64,
}

/// Everything a resumed run needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainerState {
    /// The run.
    pub spec: TrainSpec,
    /// Features per row.
    pub d: usize,
    /// Classes.
    pub k: usize,
    /// Rows.
    pub n: usize,
    /// Epochs done.
    pub epoch: usize,
    /// Each network's parameters.
    pub params: Vec<Vec<f32>>,
    /// Each network's optimizer state.
    pub optim: Vec<OptimizerState>,
    /// The generator of the data order.
    pub rng: GfRng,
    /// Every epoch so far.
    pub history: Vec<EpochRecord>,
    /// Whether each row was used by the last epoch's step (network 1's selection for
    /// Co-teaching).
    pub selected: Vec<bool>,
}

impl StateCheck for TrainerState {
    fn check_state(&self) -> std::result::Result<(), String> {
        let nets = self.spec.method.networks();
        if self.params.len() != nets || self.optim.len() != nets {
            return Err(format!("{} parameter vectors and {} optimizer states for {nets} networks", self.params.len(), self.optim.len()));
        }
        if self.selected.len() != self.n || self.history.len() != self.epoch || self.epoch > self.spec.epochs {
            return Err("selection, history and epoch count disagree".into());
        }
        if self.params.iter().flatten().any(|v| !v.is_finite()) {
            return Err("parameters that are not finite".into());
        }
        // Optimizer steps far below overflow, and moments that can be: finite, Adam's second one >= 0.
        for o in &self.optim {
            if o.t > 1 << 40 || o.m.iter().any(|v| !v.is_finite()) || o.v.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(format!("optimizer state out of range (step count {}, moments finite, second moments >= 0)", o.t));
            }
        }
        self.spec.check(self.d).map_err(|e| e.to_string())?;
        self.spec.footprint(self.d, self.n, self.k).check().map_err(|e| e.to_string())
    }
}

/// A training run in progress: the state and the live networks.
pub struct Trainer {
    state: TrainerState,
    nets: Vec<Net>,
    /// Each network's front (filter or NOK block), if any; its parameters follow the network's
    /// in the flat vector.
    fronts: Vec<Option<Front>>,
    device: Device,
    selector: Selector,
}

/// The device the networks train on: burn's pure-Rust CPU backend with gradients.
pub fn device() -> Device {
    Device::flex().autodiff()
}

impl Trainer {
    /// A fresh run on `data`.
    pub fn new(spec: TrainSpec, data: &TrainSet) -> Result<Self> {
        data.check()?;
        spec.check(data.d)?;
        spec.footprint(data.d, data.labels.len(), data.k).check()?;
        let device = device();
        let mut init = rng_from_seed(derive_seed(spec.seed, 0x1417));
        let nets: Vec<Net> = (0..spec.method.networks()).map(|_| Net::new(&spec.arch, data.d, data.k, &device, &mut init)).collect();
        let fronts = make_fronts(&spec, data.d)?;
        let params: Vec<Vec<f32>> = nets
            .iter()
            .zip(&fronts)
            .map(|(n, f)| {
                let mut p = n.params();
                p.extend(f.as_ref().map(Front::params).unwrap_or_default());
                p
            })
            .collect();
        let optim = params.iter().map(|p| OptimizerState::new(&spec.optimizer, p.len())).collect();
        let state = TrainerState {
            rng: rng_from_seed(derive_seed(spec.seed, 0x0DE4)),
            spec,
            d: data.d,
            k: data.k,
            n: data.labels.len(),
            epoch: 0,
            params,
            optim,
            history: Vec::new(),
            selected: vec![true; data.labels.len()],
        };
        Ok(Trainer { state, nets, fronts, device, selector: Selector::new() })
    }

    /// A run resumed from its state.
    pub fn from_state(state: TrainerState) -> Result<Self> {
        state.check_state().map_err(|m| RobustError::bad(format!("training state: {m}")))?;
        let device = device();
        let mut scratch = rng_from_seed(0);
        let mut nets = Vec::with_capacity(state.params.len());
        let mut fronts = make_fronts(&state.spec, state.d)?;
        for ((p, o), front) in state.params.iter().zip(&state.optim).zip(&mut fronts) {
            let net = Net::new(&state.spec.arch, state.d, state.k, &device, &mut scratch);
            let k = net.params().len();
            let want = k + front.as_ref().map_or(0, Front::n_params);
            let adam = matches!(state.spec.optimizer, OptimizerSpec::Adam { .. });
            if p.len() != want || o.m.len() != want || o.v.len() != if adam { want } else { 0 } {
                return Err(RobustError::bad(format!("training state: {} parameters for a network of {want}", p.len())));
            }
            if let Some(f) = front {
                f.set_params(&p[k..]);
            }
            nets.push(net.with_params(&p[..k], &device));
        }
        Ok(Trainer { state, nets, fronts, device, selector: Selector::new() })
    }

    /// The state (for checkpoints).
    pub fn state(&self) -> &TrainerState {
        &self.state
    }

    /// Whether every epoch has run.
    pub fn finished(&self) -> bool {
        self.state.epoch >= self.state.spec.epochs
    }

    /// Runs the next epoch on `data` (the same rows every epoch) and measures the test accuracy
    /// on `test`, if given.
    pub fn run_epoch(&mut self, data: &TrainSet, test: Option<(&[f32], &[u32])>) -> Result<EpochRecord> {
        if data.labels.len() != self.state.n || data.d != self.state.d || data.k != self.state.k {
            return Err(RobustError::bad("the training rows differ from the ones the run started on"));
        }
        let start = std::time::Instant::now();
        let st = &mut self.state;
        let spec = st.spec.clone();
        let e = st.epoch;
        let (lr, beta1) = spec.schedule().at(&spec.optimizer, e, spec.epochs);
        let weight = |i: usize| data.weights.map_or(1.0, |w| w[i]);
        // Rows of weight 0 take no part (so a run with them is the run without them).
        let mut order: Vec<usize> = match data.weights {
            None => (0..st.n).collect(),
            Some(w) => (0..st.n).filter(|&i| w[i] > 0.0).collect(),
        };
        // A batch larger than the data is the whole data (as scikit-learn's MLPClassifier clips it).
        let (d, k, m) = (st.d, st.k, spec.batch_size.min(order.len().max(1)));
        let total_weight: f64 = order.iter().map(|&i| weight(i)).sum();
        if let Some(w) = data.weights {
            for (sel, _) in st.selected.iter_mut().zip(w).filter(|(_, w)| **w == 0.0) {
                *sel = false;
            }
        }
        order.shuffle(&mut st.rng);
        let nets = spec.method.networks();
        let step_loss = spec.method.step_loss();
        // Weighted counts (integers at unit weights).
        let (mut loss_sum, mut batches, mut correct, mut used, mut used_clean) = (0.0, 0usize, 0.0f64, 0.0f64, 0.0f64);
        let mut wb: Vec<f64> = Vec::with_capacity(m);
        let mut xb = Vec::with_capacity(m * d);
        let mut onehot = Vec::with_capacity(m * k);
        let mut grad = Vec::new();
        let mut row = vec![0.0f64; k];
        let mut losses: Vec<Vec<f64>> = vec![Vec::with_capacity(m); nets];
        let mut negs: Vec<Vec<f32>> = vec![Vec::with_capacity(m); nets];
        let mut masks: Vec<Vec<bool>> = vec![Vec::with_capacity(m); nets];
        for chunk in order.chunks(m) {
            let b = chunk.len();
            xb.clear();
            onehot.clear();
            wb.clear();
            wb.extend(chunk.iter().map(|&i| weight(i)));
            for &i in chunk {
                xb.extend_from_slice(&data.x[i * d..(i + 1) * d]);
                onehot.extend((0..k).map(|c| if c == data.labels[i] as usize { 1.0f32 } else { 0.0 }));
            }
            let x = Tensor::<2>::from_data(TensorData::new(xb.clone(), [b, d]), &self.device);
            let oh = Tensor::<2>::from_data(TensorData::new(onehot.clone(), [b, k]), &self.device);
            let mut passes: Vec<FrontPass> = (0..nets).map(|_| FrontPass::default()).collect();
            let mut logits: Vec<Tensor<2>> = Vec::with_capacity(nets);
            for ((net, front), pass) in self.nets.iter().zip(&self.fronts).zip(&mut passes) {
                logits.push(net.forward_front(x.clone(), front.as_ref(), &mut Some(pass))?);
            }
            // Margins and selection losses from the forward values.
            for j in 0..nets {
                let values = logits[j].to_data().convert::<f32>();
                let values = values.as_slice::<f32>().map_err(|e| RobustError::bad(format!("logits: {e:?}")))?;
                losses[j].clear();
                negs[j].clear();
                for (r, &i) in chunk.iter().enumerate() {
                    for c in 0..k {
                        row[c] = f64::from(values[r * k + c]);
                    }
                    if row.iter().any(|v| !v.is_finite()) {
                        return Err(RobustError::bad(format!(
                            "epoch {}: the network's outputs are not finite (diverged; lower lr)",
                            e + 1
                        )));
                    }
                    let y = data.labels[i] as usize;
                    let u = hinge::margin(&row, y);
                    negs[j].push(if u < 0.0 { 1.0 } else { 0.0 });
                    if j == 0 && u > 0.0 {
                        correct += wb[r];
                    }
                    losses[j].push(match spec.method {
                        Method::CoTeaching { .. } => hinge::cross_entropy(&row, y),
                        _ => hinge::hard_hinge(&row, y),
                    });
                }
            }
            // Which samples each network's step uses.
            for mask in &mut masks {
                mask.clear();
                mask.resize(b, true);
            }
            let batch_weight: f64 = wb.iter().sum();
            match spec.method {
                Method::Npcl { eps, burn_in, train_on } if e >= burn_in => {
                    // Eq. (8.21) with the batch's weight and its misclassified weight.
                    let misclassified: f64 = negs[0].iter().zip(&wb).filter(|(v, _)| **v > 0.0).map(|(_, w)| w).sum();
                    let c = Threshold::NoisePrunedAdaptive { eps }.value_weighted(batch_weight, misclassified);
                    let w = data.weights.map(|_| &wb[..]);
                    self.selector.select_weighted(&losses[0], w, c, train_on, &mut masks[0])?;
                }
                Method::CoTeaching { eps, t_k } => {
                    // The smallest losses up to the 1 - R(e) fraction of the batch's weight (of
                    // its rows at unit weights: floor((1 - R(e)) b) of them).
                    let rate = eps * (e as f64 / t_k as f64).min(1.0);
                    let keep = (1.0 - rate) * batch_weight;
                    let mut picks: Vec<Vec<bool>> = Vec::with_capacity(2);
                    for l in &losses {
                        let mut idx: Vec<usize> = (0..b).collect();
                        idx.sort_unstable_by(|&a, &c| l[a].total_cmp(&l[c]).then(a.cmp(&c)));
                        let mut pick = vec![false; b];
                        let mut kept = 0.0;
                        for &r in &idx {
                            kept += wb[r];
                            if kept > keep {
                                break;
                            }
                            pick[r] = true;
                        }
                        picks.push(pick);
                    }
                    // Each network learns from its peer's pick; precision is network 1's pick.
                    masks[0] = picks[1].clone();
                    masks[1] = picks[0].clone();
                }
                _ => {}
            }
            let own = if nets == 2 { &masks[1] } else { &masks[0] };
            for (r, &i) in chunk.iter().enumerate() {
                st.selected[i] = own[r];
                if own[r] {
                    used += wb[r];
                    if data.clean.is_some_and(|c| c[i] == data.labels[i]) {
                        used_clean += wb[r];
                    }
                }
            }
            // One gradient step per network on the (weighted) mean loss of its samples.
            for (j, logit) in logits.into_iter().enumerate() {
                let count = masks[j].iter().filter(|s| **s).count();
                if count == 0 {
                    continue;
                }
                let w: Vec<f32> = match data.weights {
                    None => masks[j].iter().map(|s| if *s { 1.0 / count as f32 } else { 0.0 }).collect(),
                    Some(_) => {
                        let sum: f64 = masks[j].iter().zip(&wb).filter(|(s, _)| **s).map(|(_, w)| w).sum();
                        masks[j].iter().zip(&wb).map(|(s, w)| if *s { (w / sum) as f32 } else { 0.0 }).collect()
                    }
                };
                let w = Tensor::<1>::from_data(TensorData::new(w, [b]), &self.device);
                let neg = Tensor::<1>::from_data(TensorData::new(negs[j].clone(), [b]), &self.device);
                let objective = (step_loss.forward(logit, oh.clone(), neg) * w).sum();
                if j == 0 {
                    loss_sum += f64::from(objective.clone().into_scalar::<f32>());
                }
                let grads = objective.backward();
                self.nets[j].grads_into(&grads, &mut grad);
                let k_net = grad.len();
                if let Some(front) = &self.fronts[j] {
                    front.grads(&passes[j], &grads, &mut grad)?;
                }
                st.optim[j].step(&spec.optimizer, &mut st.params[j], &grad, lr, beta1);
                let net = self.nets.remove(j);
                self.nets.insert(j, net.with_params(&st.params[j][..k_net], &self.device));
                if let Some(front) = &mut self.fronts[j] {
                    front.set_params(&st.params[j][k_net..]);
                }
            }
            batches += 1;
        }
        if st.params.iter().flatten().any(|v| !v.is_finite()) {
            return Err(RobustError::bad(format!("epoch {}: the parameters are no longer finite (diverged; lower lr)", e + 1)));
        }
        st.epoch += 1;
        let test_accuracy = match test {
            Some((x, y)) => Some(accuracy(&self.nets[0], self.fronts[0].as_ref(), &self.device, x, y, d, k)?),
            None => None,
        };
        let rec = EpochRecord {
            epoch: st.epoch,
            train_loss: loss_sum / batches.max(1) as f64,
            train_accuracy: correct / total_weight,
            test_accuracy,
            label_precision: data.clean.map(|_| if used == 0.0 { 0.0 } else { used_clean / used }),
            selected_fraction: used / total_weight,
            lr,
            seconds: start.elapsed().as_secs_f64(),
        };
        st.history.push(rec.clone());
        Ok(rec)
    }

    /// The logits `n x k` of network 1 on the rows `x`.
    pub fn logits(&self, x: &[f32]) -> Result<Vec<f32>> {
        logits(&self.nets[0], self.fronts[0].as_ref(), &self.device, x, self.state.d, self.state.k)
    }

    /// The test accuracy of network 1 on the rows `x` with labels `y`.
    pub fn accuracy(&self, x: &[f32], y: &[u32]) -> Result<f64> {
        accuracy(&self.nets[0], self.fronts[0].as_ref(), &self.device, x, y, self.state.d, self.state.k)
    }

    /// FGSM (Goodfellow et al. 2015), white-box through network 1 and its front: each row of `x`
    /// moved by `eps * sign(grad_x CE(f(x), y))`, the step that increases the cross-entropy of
    /// its label `y` fastest in the max norm.
    pub fn fgsm(&self, x: &[f32], y: &[u32], eps: f32) -> Result<Vec<f32>> {
        let (d, k) = (self.state.d, self.state.k);
        check_rows(x, d)?;
        if x.len() != y.len() * d {
            return Err(RobustError::bad(format!("{} rows of features for {} labels", x.len() / d, y.len())));
        }
        check_labels("y", y, k)?;
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(RobustError::invalid("eps", eps, "a finite number >= 0"));
        }
        let mut out = Vec::with_capacity(x.len());
        for (xb, yb) in x.chunks(512 * d).zip(y.chunks(512)) {
            let b = yb.len();
            let xt = Tensor::<2>::from_data(TensorData::new(xb.to_vec(), [b, d]), &self.device).require_grad();
            let onehot: Vec<f32> = yb.iter().flat_map(|&c| (0..k).map(move |j| if j == c as usize { 1.0 } else { 0.0 })).collect();
            let oh = Tensor::<2>::from_data(TensorData::new(onehot, [b, k]), &self.device);
            let logits = self.nets[0].forward_front(xt.clone(), self.fronts[0].as_ref(), &mut None)?;
            let loss = (burn::tensor::activation::log_softmax(logits, 1) * oh).sum().neg();
            let grads = loss.backward();
            let g = xt.grad(&grads).ok_or_else(|| RobustError::bad("FGSM: no gradient reached the input"))?;
            let g = g.into_data().convert::<f32>();
            let g = g.as_slice::<f32>().map_err(|e| RobustError::bad(format!("FGSM: {e:?}")))?;
            out.extend(xb.iter().zip(g).map(|(v, gi)| {
                v + eps
                    * if *gi > 0.0 {
                        1.0
                    } else if *gi < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
            }));
        }
        Ok(out)
    }
}

/// Each network's front, seeded by the run's seed (the same `B` for every network).
fn make_fronts(spec: &TrainSpec, d: usize) -> Result<Vec<Option<Front>>> {
    (0..spec.method.networks())
        .map(|_| match &spec.front {
            Some(f) => {
                let side = image_side(d).ok_or_else(|| RobustError::invalid("front", f.name(), "square images"))?;
                Front::new(f, side, Net::conv1(&spec.arch), derive_seed(spec.seed, 0xf407)).map(Some)
            }
            None => Ok(None),
        })
        .collect()
}

fn check_rows(x: &[f32], d: usize) -> Result<()> {
    if !x.len().is_multiple_of(d) {
        return Err(RobustError::bad(format!("X has {} values, not a multiple of {d} features", x.len())));
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(RobustError::bad(format!("X[{}, {}] = {}: features must be finite", i / d, i % d, x[i])));
    }
    Ok(())
}

fn logits(net: &Net, front: Option<&Front>, device: &Device, x: &[f32], d: usize, k: usize) -> Result<Vec<f32>> {
    check_rows(x, d)?;
    let valid = net.clone().valid();
    let inner = device.clone().inner();
    let mut out = Vec::with_capacity(x.len() / d * k);
    for block in x.chunks(1024 * d) {
        let rows = block.len() / d;
        let t = Tensor::<2>::from_data(TensorData::new(block.to_vec(), [rows, d]), &inner);
        let data = valid.forward_front(t, front, &mut None)?.into_data().convert::<f32>();
        out.extend_from_slice(data.as_slice::<f32>().map_err(|e| RobustError::bad(format!("logits: {e:?}")))?);
    }
    Ok(out)
}

fn accuracy(net: &Net, front: Option<&Front>, device: &Device, x: &[f32], y: &[u32], d: usize, k: usize) -> Result<f64> {
    let out = logits(net, front, device, x, d, k)?;
    if out.len() != y.len() * k {
        return Err(RobustError::bad(format!("test set: {} rows of features for {} labels", out.len() / k, y.len())));
    }
    let hits = out
        .chunks(k)
        .zip(y)
        .filter(|(row, y)| {
            let best = row.iter().enumerate().fold(0, |b, (c, v)| if *v > row[b] { c } else { b });
            best == **y as usize
        })
        .count();
    Ok(hits as f64 / y.len().max(1) as f64)
}
