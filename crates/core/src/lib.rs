//! # gradfree-core
//!
//! The pieces every gradfree algorithm shares:
//!
//! - [`Objective`]: a function `f: R^d -> R` that can only be evaluated, with sequential and
//!   parallel (rayon) evaluation of a [`Population`] stored row-major as an `n x d` matrix.
//! - [`Bounds`]: a box `[l, u]`, with repair (clip, reflect) and penalty handling.
//! - [`AskTell`]: the state-machine interface of population methods (`ask` proposes points,
//!   `tell` takes their values), with shared validation of what is told ([`check_tell`]).
//! - [`Driver`] and [`minimize`]: the loop around an `AskTell` optimizer, with [`StopRules`]
//!   (evaluations, generations, target, tolerance on f and on x, wall time) and [`Observer`]s
//!   (JSON-lines log, in-memory history; the CLI adds a progress bar).
//! - [`registry`]: the one shape of every registry ([`registry::Entry`]: name, summary, source).
//! - [`session`]: a driver run to its end with its outputs (log, checkpoints, the caller's
//!   observers), the one place front ends wire them.
//! - [`seed`]: the one way to turn a `u64` seed into the project's portable generator.
//! - [`checkpoint`]: atomic files and checkpoints from which a run resumes bit-identically.
//! - [`linalg`]: the small dense linear algebra the methods share, on faer (column-major factors,
//!   so that a `d x n` block is the same memory as an `n x d` row-major [`Population`]), and
//!   Haar-random rotations ([`linalg::random_orthogonal`]).
//! - [`stats`]: mean, standard deviations, median, quantiles and a bootstrap interval, the one copy
//!   every subsystem reports with.
//!
//! No algorithm lives here; see `gradfree-es` for the optimizers.

pub mod asktell;
pub mod bounds;
pub mod checkpoint;
pub mod driver;
pub mod error;
pub mod files;
pub mod linalg;
pub mod memory;
pub mod objective;
pub mod observer;
pub mod params;
pub mod population;
pub mod records;
pub mod registry;
pub mod run;
pub mod schema;
pub mod seed;
pub mod session;
pub mod state;
pub mod stats;
pub mod stop;
pub mod stop_spec;

pub use asktell::{AskTell, Event, EventKind, NonFinitePolicy, begin_tell, check_tell};
pub use bounds::{BoundaryRepair, Bounds, BoundsHandling, transform_coordinate};
pub use checkpoint::{
    Checkpoint, atomic_write, atomic_write_with, check_writable_target, load_checkpoint, parse_checkpoint, read_regular_file,
    save_checkpoint,
};
pub use driver::{CheckpointPolicy, Driver, DriverOptions, minimize};
pub use error::CoreError;
pub use files::{Role, RunFiles};
pub use objective::{EvalContext, FnObjective, Objective, eval_generation, eval_population, eval_population_par};
pub use observer::{GenerationRecord, GenerationWithExtras, History, JsonLinesLog, Observer, RunInfo};
pub use params::ParamGuard;
pub use population::Population;
pub use records::{Fingerprint, FingerprintBuilder, RecordFile, RecordsRef};
pub use run::{DriverState, Run, RunResult};
pub use seed::{GfRng, derive_seed, rng_from_seed};
pub use session::{Outputs, run_with_outputs};
pub use state::StateCheck;
pub use stop::{StopReason, StopRules, convergence};
pub use stop_spec::{RunShape, StopSpec};
