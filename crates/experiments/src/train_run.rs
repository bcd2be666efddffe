//! `gradfree train`'s run: a labelled data set, seeded label noise on its training rows, and a
//! training run of `gradfree_robust::train` ([`TrainRunSpec`], which holds every default once).
//! Serializable: it is the metadata of the command's checkpoints, so a resumed run rebuilds the
//! same noisy labels.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_data::Labeled;
use gradfree_robust::train::{Arch, FrontSpec, Method, OptimizerSpec, Schedule, TrainSet, TrainSpec};
use gradfree_robust::{LabelNoise, NoisyLabels, RobustError, flip_labels};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::Result;

/// Data sets `gradfree train` reads.
pub const TRAIN_DATA: &[&str] = &["fashion-mnist", "digits"];

/// One `gradfree train` run, with the thesis' settings as defaults (sec. 8.3.1: batches of 128,
/// Adam on Co-teaching's plan, NPCL after a 5-epoch burn-in, the true noise rate as `eps`).
/// Fields missing from a JSON document take these defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainRunSpec {
    /// `fashion-mnist` (60,000 training and 10,000 test images) or `digits` (1,797 images, 1,400
    /// for training).
    pub data: String,
    /// `mlp` (two hidden layers of 256) or `cnn`.
    pub model: String,
    /// The MLP's hidden-layer widths; `None` is 256, 256 (Co-teaching's MLP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Vec<usize>>,
    /// `npcl`, `cl`, `ce`, `gce`, `coteaching`, `hinge` (soft) or `hinge-hard`.
    pub loss: String,
    /// Label noise injected into the training labels: `none`, `symmetric:RATE`, `pair:RATE`.
    pub noise: String,
    /// `eps` of NPCL and Co-teaching; `None` is the injected rate (the thesis uses the true rate).
    pub noise_rate: Option<f64>,
    /// Epochs.
    pub epochs: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// NPCL/CL: epochs of soft hinge on every sample before the selection starts.
    pub burn_in: usize,
    /// `adam` (lr 1e-3) or `sgd` (lr 1e-2, momentum 0.9).
    pub optimizer: String,
    /// Learning rate; `None` is the optimizer's default.
    pub lr: Option<f64>,
    /// `co-teaching` (linear decay to 0 over the last 60% of the epochs, Adam beta1 0.1 there) or
    /// `constant`.
    pub schedule: String,
    /// Seed of the noise, the initialization and the data order.
    pub seed: u64,
    /// A 3 x 3 mean or median filter, or the NOK block, in front of the first learnable layer
    /// (thesis sec. 7.6); `None`: nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<FrontSpec>,
}

impl Default for TrainRunSpec {
    fn default() -> Self {
        TrainRunSpec {
            data: "fashion-mnist".into(),
            model: "mlp".into(),
            hidden: None,
            loss: "npcl".into(),
            noise: "symmetric:0.5".into(),
            noise_rate: None,
            epochs: 50,
            batch_size: 128,
            burn_in: 5,
            optimizer: "adam".into(),
            lr: None,
            schedule: "co-teaching".into(),
            seed: 1,
            block: None,
        }
    }
}

/// A data set's rows split into training and test rows, before any noise: loaded once and
/// shared by every run on it ([`load_base`]).
pub struct BaseData {
    /// Training features, row-major.
    pub x: Vec<f32>,
    /// Features per row.
    pub d: usize,
    /// Classes.
    pub k: usize,
    /// The true training labels.
    pub clean: Vec<u32>,
    /// Test features.
    pub x_test: Vec<f32>,
    /// Test labels (never corrupted).
    pub y_test: Vec<u32>,
}

/// A run's rows in memory: the data set and the noisy training labels of this run.
pub struct LoadedTrain {
    /// The data set, split.
    pub base: std::sync::Arc<BaseData>,
    /// The injected noise: labels, transition matrix, realized rate.
    pub noisy: NoisyLabels,
}

impl std::ops::Deref for LoadedTrain {
    type Target = BaseData;
    fn deref(&self) -> &BaseData {
        &self.base
    }
}

impl LoadedTrain {
    /// The training set as the trainer reads it.
    pub fn train_set(&self) -> TrainSet<'_> {
        TrainSet {
            x: &self.base.x,
            d: self.base.d,
            labels: &self.noisy.labels,
            clean: Some(&self.base.clean),
            k: self.base.k,
            weights: None,
        }
    }
}

/// Loads data set `data` ([`TRAIN_DATA`]) and splits it: Fashion-MNIST's own split (the first
/// 60,000 rows train), the digits by a fixed seeded shuffle into 1,400 training and 397 test
/// images.
pub fn load_base(data: &str) -> Result<BaseData> {
    let ds = match data {
        "fashion-mnist" | "digits" => gradfree_data::load_labeled(data)?,
        other => return Err(RobustError::invalid("data", other, TRAIN_DATA.join(" or ")).into()),
    };
    let (train, test) = split(&ds);
    let take = |rows: &[usize]| -> (Vec<f32>, Vec<u32>) {
        (rows.iter().flat_map(|&i| ds.row(i).iter().copied()).collect(), rows.iter().map(|&i| ds.labels[i]).collect())
    };
    let (x, clean) = take(&train);
    let (x_test, y_test) = take(&test);
    Ok(BaseData { x, d: ds.d, k: ds.classes.len(), clean, x_test, y_test })
}

impl TrainRunSpec {
    /// The parsed noise.
    pub fn label_noise(&self) -> Result<LabelNoise> {
        Ok(self.noise.parse::<LabelNoise>()?)
    }

    /// The training run (method, network, optimizer) this spec describes.
    pub fn train_spec(&self) -> Result<TrainSpec> {
        let noise = self.label_noise()?;
        let eps = self.noise_rate.unwrap_or(noise.rate);
        let method = Method::from_name(&self.loss, eps, self.burn_in)?;
        let arch = match self.model.as_str() {
            "mlp" => match &self.hidden {
                Some(h) => Arch::Mlp { hidden: h.clone() },
                None => Arch::mlp(),
            },
            "cnn" if self.hidden.is_some() => {
                return Err(RobustError::invalid("hidden", "a list of widths", "no value with model cnn").into());
            }
            "cnn" => Arch::Cnn,
            m => return Err(RobustError::invalid("model", m, "mlp or cnn").into()),
        };
        let mut optimizer = match self.optimizer.as_str() {
            "adam" => OptimizerSpec::ADAM,
            "sgd" => OptimizerSpec::SGD,
            o => return Err(RobustError::invalid("optimizer", o, "adam or sgd").into()),
        };
        if let Some(lr) = self.lr {
            match &mut optimizer {
                OptimizerSpec::Adam { lr: l, .. } | OptimizerSpec::Sgd { lr: l, .. } => *l = lr,
            }
        }
        let schedule = match self.schedule.as_str() {
            "co-teaching" => Schedule::co_teaching(self.epochs),
            "constant" => Schedule::Constant,
            s => return Err(RobustError::invalid("schedule", s, "co-teaching or constant").into()),
        };
        let spec = TrainSpec {
            arch,
            method,
            optimizer,
            schedule: Some(schedule),
            epochs: self.epochs,
            batch_size: self.batch_size,
            seed: self.seed,
            front: self.block.clone(),
        };
        Ok(spec)
    }

    /// Loads the data, splits it, and corrupts the training labels (seeded by `seed`).
    pub fn load(&self) -> Result<LoadedTrain> {
        self.label_noise()?;
        if !TRAIN_DATA.contains(&self.data.as_str()) {
            return Err(RobustError::invalid("data", &self.data, TRAIN_DATA.join(" or ")).into());
        }
        self.corrupt(std::sync::Arc::new(load_base(&self.data)?))
    }

    /// This run's noisy labels on `base` (loaded from [`TrainRunSpec::data`]), seeded by `seed`.
    pub fn corrupt(&self, base: std::sync::Arc<BaseData>) -> Result<LoadedTrain> {
        let noise = self.label_noise()?;
        let noisy = flip_labels(&base.clean, base.k, noise, derive_seed(self.seed, 0x4015E))?;
        self.train_spec()?.check(base.d)?;
        Ok(LoadedTrain { base, noisy })
    }
}

/// Fashion-MNIST's own split (the first 60,000 rows train); the digits split by a fixed seeded
/// shuffle into 1,400 training and 397 test images. The split every training experiment uses.
pub fn split(ds: &Labeled) -> (Vec<usize>, Vec<usize>) {
    match ds.name {
        "fashion-mnist" => ((0..60_000.min(ds.n)).collect(), (60_000.min(ds.n)..ds.n).collect()),
        _ => {
            let mut idx: Vec<usize> = (0..ds.n).collect();
            idx.shuffle(&mut rng_from_seed(5));
            let test = idx.split_off(1400.min(ds.n));
            (idx, test)
        }
    }
}
