//! `gradfree train`'s run: a labelled data set, seeded label noise on its training rows, and a
//! training run of `gradfree_robust::train` ([`TrainRunSpec`], which holds every default once).
//! Serializable: it is the metadata of the command's checkpoints, so a resumed run rebuilds the
//! same noisy labels.

use gradfree_core::{derive_seed, rng_from_seed};
use gradfree_data::Labeled;
use gradfree_robust::train::{Arch, FrontSpec, METHOD_NAMES, Method, OptimizerSpec, Schedule, TrainSet, TrainSpec};
use gradfree_robust::{LabelNoise, NoisyLabels, RobustError, flip_labels};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::Result;

/// Data sets `gradfree train` reads.
pub const TRAIN_DATA: &[&str] = &["fashion-mnist", "digits"];
/// Networks: the MLP and the CNN.
pub const MODELS: &[&str] = &["mlp", "cnn"];
/// Optimizers.
pub const OPTIMIZERS: &[&str] = &["adam", "sgd"];
/// Learning-rate plans.
pub const SCHEDULES: &[&str] = &["co-teaching", "constant"];

/// One `gradfree train` run, with the thesis' settings as defaults (sec. 8.3.1: batches of 128,
/// Adam on Co-teaching's plan, NPCL after a 5-epoch burn-in, the true noise rate as `eps`).
/// Fields missing from a JSON document take these defaults.
///
/// Its keywords ([`keywords`]) are read from these fields, with their Python names (the
/// scikit-learn estimator's `hidden_layer_sizes`, `learning_rate`, `random_state`) and the names
/// the library's checks give parts of them declared on the fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrainRunSpec {
    /// `fashion-mnist` (60,000 training and 10,000 test images) or `digits` (1,797 images, 1,400
    /// for training).
    #[schemars(extend("enum" = TRAIN_DATA, "x-python" = ""))]
    pub data: String,
    /// `mlp` (two hidden layers of 256) or `cnn`.
    #[schemars(extend("enum" = MODELS))]
    pub model: String,
    /// The MLP's hidden-layer widths; `None` is 256, 256 (Co-teaching's MLP).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-python" = "hidden_layer_sizes"))]
    pub hidden: Option<Vec<usize>>,
    /// `npcl`, `cl`, `ce`, `gce`, `coteaching`, `hinge` (soft) or `hinge-hard`.
    #[schemars(extend("enum" = METHOD_NAMES))]
    pub loss: String,
    /// Label noise injected into the training labels: `none`, `symmetric:RATE`, `pair:RATE`
    /// (Python trains on labels that are noisy already).
    #[schemars(extend("x-python" = "", "x-aliases" = ["noise rate"]))]
    pub noise: String,
    /// `eps` of NPCL and Co-teaching; `None` is the injected rate (the thesis uses the true rate).
    #[schemars(extend("x-aliases" = ["eps"]))]
    pub noise_rate: Option<f64>,
    /// Epochs.
    pub epochs: usize,
    /// Mini-batch size.
    pub batch_size: usize,
    /// NPCL/CL: epochs of soft hinge on every sample before the selection starts.
    pub burn_in: usize,
    /// `adam` (lr 1e-3) or `sgd` (lr 1e-2, momentum 0.9).
    #[schemars(extend("enum" = OPTIMIZERS))]
    pub optimizer: String,
    /// Learning rate; `None` is the optimizer's default.
    #[schemars(extend("x-python" = "learning_rate"))]
    pub lr: Option<f64>,
    /// `co-teaching` (linear decay to 0 over the last 60% of the epochs, Adam beta1 0.1 there) or
    /// `constant`.
    #[schemars(extend("enum" = SCHEDULES))]
    pub schedule: String,
    /// Seed of the noise, the initialization and the data order.
    #[schemars(extend("x-python" = "random_state"))]
    pub seed: u64,
    /// A 3 x 3 mean or median filter, or the NOK block, in front of the first learnable layer
    /// (thesis sec. 7.6); `None`: nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>", extend("x-aliases" = ["front"]))]
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

/// The keywords of a training run ([`TrainRunSpec`]'s fields; [`gradfree_core::schema`]): what
/// `gradfree train` and Python's `CurriculumClassifier` take, with the accepted values and the
/// names the library's checks give each.
pub fn keywords() -> Vec<gradfree_core::schema::Keyword> {
    gradfree_core::schema::keywords::<TrainRunSpec>()
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
            m => return Err(RobustError::invalid("model", m, MODELS.join(" or ")).into()),
        };
        let mut optimizer = match self.optimizer.as_str() {
            "adam" => OptimizerSpec::ADAM,
            "sgd" => OptimizerSpec::SGD,
            o => return Err(RobustError::invalid("optimizer", o, OPTIMIZERS.join(" or ")).into()),
        };
        if let Some(lr) = self.lr {
            match &mut optimizer {
                OptimizerSpec::Adam { lr: l, .. } | OptimizerSpec::Sgd { lr: l, .. } => *l = lr,
            }
        }
        let schedule = match self.schedule.as_str() {
            "co-teaching" => Schedule::co_teaching(self.epochs),
            "constant" => Schedule::Constant,
            s => return Err(RobustError::invalid("schedule", s, SCHEDULES.join(" or ")).into()),
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

#[cfg(test)]
mod keyword_tests {
    use super::*;

    /// Every field is a keyword with the spec's default; the choices are the lists the checks use,
    /// and a wrong value of each is refused under the keyword's name or one of its aliases.
    #[test]
    fn keywords_are_the_fields_and_errors_name_them() {
        let k = keywords();
        let by = |n: &str| k.iter().find(|k| k.name == n).unwrap_or_else(|| panic!("{n}"));
        let d = serde_json::to_value(TrainRunSpec::default()).unwrap();
        for (name, value) in d.as_object().unwrap() {
            assert_eq!(by(name).default.as_ref(), Some(value).filter(|v| !v.is_null()), "{name}");
        }
        assert_eq!(by("model").values, MODELS);
        assert_eq!(by("optimizer").values, OPTIMIZERS);
        assert_eq!(by("schedule").values, SCHEDULES);
        assert_eq!(by("loss").values, METHOD_NAMES);
        assert_eq!(by("data").values, TRAIN_DATA);
        assert_eq!(
            (by("lr").python.as_str(), by("seed").python.as_str(), by("data").python.as_str()),
            ("learning_rate", "random_state", "")
        );
        let refused = |spec: TrainRunSpec| -> String {
            match spec.label_noise().and_then(|_| spec.train_spec()).and_then(|t| t.check(784).map_err(Into::into)) {
                Err(crate::ExperimentError::Robust(RobustError::Core(gradfree_core::CoreError::InvalidParameter { name, .. }))) => {
                    name.to_string()
                }
                other => panic!("{other:?}"),
            }
        };
        let base = TrainRunSpec::default;
        for (spec, keyword) in [
            (TrainRunSpec { model: "rnn".into(), ..base() }, "model"),
            (TrainRunSpec { optimizer: "lbfgs".into(), ..base() }, "optimizer"),
            (TrainRunSpec { schedule: "cosine".into(), ..base() }, "schedule"),
            (TrainRunSpec { loss: "mse".into(), ..base() }, "loss"),
            (TrainRunSpec { noise: "symmetric:1.5".into(), ..base() }, "noise"),
            (TrainRunSpec { noise_rate: Some(-1.0), ..base() }, "noise_rate"),
            (TrainRunSpec { epochs: 0, ..base() }, "epochs"),
            (TrainRunSpec { batch_size: 0, ..base() }, "batch_size"),
        ] {
            let name = refused(spec);
            let k = by(keyword);
            assert!(k.name == name || k.aliases.contains(&name), "{keyword}: refused as {name}");
        }
    }
}
