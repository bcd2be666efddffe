//! The training stack (feature `train`): networks on burn's CPU backend, optimizers on a flat
//! parameter vector, Algorithm 14 and the baselines of thesis sec. 8.3 as one epoch loop.

pub mod front;
pub mod generative;
pub mod kernels;
pub mod loss;
pub mod method;
pub mod net;
pub mod optim;
pub mod trainer;

pub use front::{Front, FrontPass, FrontSpec, NokAt, NokPlug};
pub use loss::SampleLoss;
pub use method::{METHOD_NAMES, Method};
pub use net::{Arch, Net};
pub use optim::{OptimizerSpec, OptimizerState, Schedule};
pub use trainer::{Collapsed, EpochRecord, TrainSet, TrainSpec, Trainer, TrainerState, collapse_rows};
