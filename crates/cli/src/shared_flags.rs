//! The flags several commands share, declared once and flattened into each command's Args:
//! output ([`RunOutput`]), log, checkpoint and resume ([`RunFilesArgs`], [`CheckpointArgs`]),
//! checkpoint cadence ([`CadenceArgs`]) and what to do with non-finite values ([`NonFiniteArg`]).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// The output flags of the commands that run long.
#[derive(Args, Debug, Default)]
pub struct RunOutput {
    /// Print exactly one JSON object on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

impl RunOutput {
    /// Whether to draw a progress bar.
    pub fn bar(&self) -> bool {
        !self.quiet && !self.json
    }
}

/// The checkpoint flags of the commands whose runs save themselves (`optimize`, `bo`, `infer`,
/// `train`), checked by one file policy ([`gradfree_core::RunFiles`], built by
/// [`CheckpointArgs::files`]). A command says in its own `--checkpoint` help when it saves (clap's
/// `mut_arg` on its Args).
#[derive(Args, Debug, Default)]
pub struct CheckpointArgs {
    /// Checkpoint file, written atomically as the run goes and at its end.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Resume the run saved in this checkpoint: its definition comes from it.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Let a new run replace an existing checkpoint file (another run's).
    #[arg(long)]
    pub overwrite: bool,
}

impl CheckpointArgs {
    /// The checkpoint the run writes: `--checkpoint`, else the one it resumed from.
    pub fn checkpoint_path(&self) -> Option<PathBuf> {
        self.checkpoint.clone().or_else(|| self.resume.clone())
    }
}

/// The files of a run that logs and saves itself (`optimize`, `bo`, `train`): its JSON-lines log
/// and its checkpoint flags ([`CheckpointArgs`], reached through this type too).
#[derive(Args, Debug, Default)]
pub struct RunFilesArgs {
    /// JSON-lines log of the run, one record per generation (`gradfree plot` draws it); a resumed
    /// run keeps writing its own.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint and resume.
    #[command(flatten)]
    pub saved: CheckpointArgs,
}

impl std::ops::Deref for RunFilesArgs {
    type Target = CheckpointArgs;
    fn deref(&self) -> &CheckpointArgs {
        &self.saved
    }
}

/// How often a long run saves itself (`optimize`, `infer`): by count, by time, or both.
#[derive(Args, Debug, Default)]
pub struct CadenceArgs {
    /// Generations (`optimize`) or steps (`infer`) between checkpoints [default: by time,
    /// --checkpoint-seconds; a resumed run keeps its saved setting].
    #[arg(long)]
    pub checkpoint_every: Option<u64>,
    /// Wall-clock seconds between checkpoints [default: `optimize` 30, `infer` 10 unless
    /// --checkpoint-every is given; a resumed run keeps its saved setting].
    #[arg(long, allow_hyphen_values = true)]
    pub checkpoint_seconds: Option<f64>,
}

impl CadenceArgs {
    /// Whether either flag was given.
    pub fn given(&self) -> bool {
        self.checkpoint_every.is_some() || self.checkpoint_seconds.is_some()
    }
}

/// What `tell` does with NaN/inf objective values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NonFiniteArg {
    /// Stop with an error naming the point.
    Error,
    /// Rank the point worst (+inf) and go on.
    TreatAsInf,
}
