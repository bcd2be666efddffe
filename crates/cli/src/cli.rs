//! Command-line definitions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gradfree_bo::BoParams;
use gradfree_es::RestartScheme;
use gradfree_experiments::bo_run;
use gradfree_qmc::lattice::search::SearchSpec;

/// gradfree: gradient-free optimization (evolution strategies, random search) and the experiments
/// of the works it implements (see the user guide's docs/references.md).
#[derive(Parser, Debug)]
#[command(
    name = "gradfree",
    version,
    about,
    long_about = None,
    after_help = "Policy search (reinforcement learning with the evolution strategies, thesis sec. 3.7.2) runs from \
                  Python: `python -m gradfree.rl --help` (the Python package and Gymnasium)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List problems, algorithms and experiments.
    List(ListArgs),
    /// Minimize a benchmark problem with an algorithm.
    Optimize(Box<OptimizeArgs>),
    /// List an algorithm's parameters (`optimize --param KEY=VALUE`, Python keywords) with their
    /// accepted values, defaults and ranges.
    Params(ParamsArgs),
    /// Plot best f vs evaluations from one or more JSON-lines logs (`optimize --log`).
    Plot(PlotArgs),
    /// Re-run an experiment of the implemented works (Lyu 2021 "the thesis", MiNES): print its
    /// table, write CSV and PNG.
    Reproduce(ReproduceArgs),
    /// Build a rank-1 lattice (subgroup closed form or Korobov search); print its generating
    /// vector and minimum toroidal distances; optionally write its points.
    Lattice(LatticeArgs),
    /// Generate QMC points (Sobol, subgroup or Korobov lattice), optionally randomized.
    Sample(SampleArgs),
    /// Estimate the thesis' test integral (eq. 5.22) by randomized QMC, with a standard error.
    Integrate(IntegrateArgs),
    /// Map data to random features of a kernel (Gaussian, arc-cosine) by i.i.d., orthogonal,
    /// circulant, QMC or spherical structured (SSF) projections; optionally report the Gram error.
    Features(Box<FeaturesArgs>),
    /// Batch Bayesian optimization of a benchmark problem on its box (thesis ch. 4): a GP with
    /// ARD Matern 5/2 kernel, an initial rank-1 lattice design, then batches chosen by BKOP,
    /// GP-BUCB, GP-UCB-PE, constant-weight UCB, Bull's non-adaptive method or expected improvement.
    Bo(Box<BoArgs>),
    /// Confidence intervals from stochastic-gradient chains (Liang & Su 2019: MasGrad, SGD, their
    /// diffusions, MadProx; averaged SGD with random scaling, Lee et al. 2022) for a linear,
    /// logistic, Poisson, mixture or ReLU model on a .csv/.npy file, in memory or streamed.
    Infer(Box<crate::infer::InferArgs>),
    /// Train a classifier on noisy labels: the curriculum loss and NPCL (thesis ch. 8, Algorithm
    /// 14) or a baseline (cross-entropy, GCE, Co-teaching, hinge), with seeded label noise.
    Train(Box<crate::train::TrainArgs>),
}

/// `gradfree bo`. Defaults are the library's ([`gradfree_bo::BoParams`],
/// [`gradfree_experiments::bo_run`]), read from it, not written here.
#[derive(Args, Debug)]
pub struct BoArgs {
    /// Problem with a box (`gradfree list`), e.g. ackley, rosenbrock, levy, robot-push.
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    pub problem: Option<String>,
    /// Dimension.
    #[arg(long, default_value_t = bo_run::DEFAULT_DIM, conflicts_with = "resume")]
    pub dim: usize,
    /// Selection rule: bkop, ucb, gp-bucb, gp-ucb-pe, bull, ei.
    #[arg(long, default_value_t = BoParams::default().method.name().to_string(), conflicts_with = "resume")]
    pub method: String,
    /// Points per round (L).
    #[arg(long, default_value_t = BoParams::default().batch_size, conflicts_with = "resume")]
    pub batch: usize,
    /// Rounds after the initial design (each evaluates --batch points); a resumed run goes on to
    /// its saved number unless given.
    #[arg(long, value_name = "N", help = format!("Rounds after the initial design (each evaluates --batch points) [default: {}; a resumed run: its saved number]", bo_run::DEFAULT_ROUNDS))]
    pub rounds: Option<u64>,
    /// Initial lattice design size (default max(10, 3d + 2); bull: the whole budget minus one).
    #[arg(long, conflicts_with = "resume")]
    pub n_initial: Option<usize>,
    /// Kernel: matern52 or se.
    #[arg(long, default_value_t = BoParams::default().kernel.name().to_string(), conflicts_with = "resume")]
    pub kernel: String,
    /// Weight of the exploration term of bkop and ucb.
    #[arg(long, default_value_t = BoParams::default().weight, allow_negative_numbers = true, conflicts_with = "resume")]
    pub weight: f64,
    /// Fixed beta_t for gp-bucb and gp-ucb-pe (default 0.2 d ln(2t)).
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub beta: Option<f64>,
    /// Fixed noise variance of the GP in standardized units (e.g. 1e-6 for a deterministic
    /// objective); default: learned by maximum likelihood.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "resume")]
    pub noise: Option<f64>,
    /// CMA-ES starts of the acquisition maximization.
    #[arg(long, default_value_t = BoParams::default().inner.starts, conflicts_with = "resume")]
    pub acq_starts: usize,
    /// Acquisition evaluations per start and variable.
    #[arg(long, default_value_t = BoParams::default().inner.evals_per_dim, conflicts_with = "resume")]
    pub acq_evals: usize,
    /// At most this many acquisition evaluations per start (binds beyond 40 variables, e.g.
    /// BKOP's joint search over batch x dimension variables).
    #[arg(long, default_value_t = BoParams::default().inner.max_evals, conflicts_with = "resume")]
    pub acq_max_evals: usize,
    /// Seed of the method (design order, fits, acquisition search).
    #[arg(long, default_value_t = 0, conflicts_with = "resume")]
    pub seed: u64,
    /// Seed of the problem instance.
    #[arg(long, default_value_t = 0, conflicts_with = "resume")]
    pub problem_seed: u64,
    /// NaN/inf values: error, or treat-as-inf (a failed evaluation the model learns to avoid)
    /// [default: error].
    #[arg(long, value_enum, conflicts_with = "resume")]
    pub on_nonfinite: Option<NonFiniteArg>,
    /// JSON-lines log of every round (`gradfree plot` draws it).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Checkpoint file, written atomically after every round.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Resume from a checkpoint: the run's definition (problem, dimension, method, batch, seeds,
    /// model) comes from it and may not be given again; only --rounds (to go further), --log,
    /// --checkpoint and output options apply.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Let a new run replace an existing checkpoint file (another run's).
    #[arg(long)]
    pub overwrite: bool,
    /// Output.
    #[command(flatten)]
    pub output: RunOutput,
}

/// The output flags of the commands that run long.
#[derive(Args, Debug)]
pub struct RunOutput {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl RunOutput {
    /// Whether to draw a progress bar.
    pub fn bar(&self) -> bool {
        !self.quiet && !self.json
    }
}

#[derive(Args, Debug)]
pub struct FeaturesArgs {
    /// Kernel: gaussian, arccos0, arccos1, arccos2 (arccosB for any order B up to 10).
    #[arg(long, default_value = "gaussian")]
    pub kernel: String,
    /// Projection method (`gradfree list` describes them): iid, orf, circulant, halton, sobol, lattice, ssf.
    #[arg(long, default_value = "ssf")]
    pub method: String,
    /// Output dimension (features come in cos/sin or chi(p)/chi(-p) pairs, 2M per projection for
    /// SSF Gaussian: other counts cut the last group).
    #[arg(long)]
    pub dim_out: usize,
    /// Input rows: a .csv (one row per line, optional header) or .npy (float64/float32, 2-d) file.
    #[arg(long, conflicts_with = "dataset", required_unless_present = "dataset")]
    pub data: Option<PathBuf>,
    /// Or an installed real data set: fashion-mnist (dataset-fashion-mnist) or dna (r-cran-mlbench).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Gaussian bandwidth sigma (K = exp(-|x - z|^2 / (2 sigma^2))); default from --gamma.
    #[arg(long, allow_negative_numbers = true, conflicts_with = "gamma")]
    pub sigma: Option<f64>,
    /// Gaussian gamma (K = exp(-gamma |x - z|^2)), or `scale` = 1 / (d var(X)) as scikit-learn.
    #[arg(long, default_value = "scale")]
    pub gamma: String,
    /// SSF, Gaussian kernel: radial quadrature points M (eq. 6.10).
    #[arg(long, default_value_t = 1)]
    pub radial_points: usize,
    /// SSF: how the DFT rows are chosen.
    #[arg(long, value_enum, default_value_t = SsfFrequenciesArg::Optimized)]
    pub frequencies: SsfFrequenciesArg,
    /// SSF: random sign flips (O(d), the thesis) or a Haar rotation (O(d^2), exactly unbiased).
    #[arg(long, value_enum, default_value_t = SsfRotationArg::Signs)]
    pub rotation: SsfRotationArg,
    /// Seed of all randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the features to a .npy or .csv file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Report the relative Frobenius and max Gram errors against the exact kernel.
    #[arg(long)]
    pub report: bool,
    /// Rows sampled for --report (all rows if fewer).
    #[arg(long, default_value_t = 2000)]
    pub report_rows: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `gradfree features --frequencies`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SsfFrequenciesArg {
    /// Algorithm 12 (coordinate ascent on the log-energy, thesis eq. 6.34).
    Optimized,
    /// The closed-form subgroup (needs a prime n with d/2 | n - 1).
    Subgroup,
    /// Uniformly random distinct rows.
    Random,
}

/// `gradfree features --rotation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SsfRotationArg {
    /// Random +-1 diagonal.
    Signs,
    /// Haar-random orthogonal matrix.
    Haar,
    /// Random phases and a coordinate permutation (thesis app. 10.26).
    Phase,
}

#[derive(Args, Debug)]
pub struct ParamsArgs {
    /// Algorithm name (`gradfree list` shows them).
    pub algo: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct IntegrateArgs {
    /// Point set of each randomization.
    #[arg(long, value_enum, default_value_t = IntegrateMethod::Subgroup)]
    pub method: IntegrateMethod,
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Points per randomization (subgroup: a prime with 2d | n - 1).
    #[arg(long)]
    pub n: u64,
    /// Independent randomizations (random shifts / scramblings / MC draws).
    #[arg(long, default_value_t = 50)]
    pub replicates: usize,
    /// Decay b of the weights j^-b.
    #[arg(long, default_value_t = 2.0)]
    pub b: f64,
    /// Scale c.
    #[arg(long, default_value_t = 1.0)]
    pub c: f64,
    /// Seed of the randomizations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub use gradfree_experiments::integration::Method as IntegrateMethod;

#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Point set.
    #[arg(long, value_enum)]
    pub method: SampleMethod,
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Number of points.
    #[arg(long)]
    pub n: u64,
    /// Sobol randomization.
    #[arg(long, value_enum, default_value_t = ScrambleArg::LmsShift)]
    pub scramble: ScrambleArg,
    /// Lattices: add a uniform random shift (eq. 5.4).
    #[arg(long)]
    pub random_shift: bool,
    /// Korobov multiplier a (z = (1, a, a^2, ...) mod n).
    #[arg(long)]
    pub a: Option<u64>,
    /// Seed of the randomization.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sobol: skip this many points first.
    #[arg(long, default_value_t = 0)]
    pub skip: u64,
    /// Sobol: digits of the generator, 1 to 64 as scipy's `bits` (at most 2^bits points, each a
    /// multiple of 2^-bits; above 53 rounded down to a double)
    #[arg(long, default_value_t = 32)]
    pub bits: u32,
    /// Write the points to a .csv or .npy file (`-o -`: CSV on stdout, nothing else printed).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Point sets of `gradfree sample`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SampleMethod {
    /// Sobol (Joe-Kuo direction numbers).
    Sobol,
    /// Subgroup rank-1 lattice (n prime, 2d | n - 1).
    Subgroup,
    /// Rank-1 lattice in Korobov form with multiplier --a.
    Korobov,
    /// Halton (random digit permutations unless --scramble none).
    Halton,
    /// i.i.d. uniform (Monte Carlo).
    Mc,
    /// Latin hypercube.
    Lhs,
}

/// Sobol randomizations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScrambleArg {
    /// Deterministic.
    None,
    /// Linear matrix scrambling + digital shift.
    LmsShift,
    /// Owen nested uniform scrambling.
    Owen,
}

#[derive(Args, Debug)]
pub struct LatticeArgs {
    /// Dimension d.
    #[arg(long)]
    pub dim: usize,
    /// Number of points n (subgroup: a prime with 2d | n - 1; the error lists admissible ones).
    #[arg(long)]
    pub n: u64,
    /// Construction.
    #[arg(long, value_enum, default_value_t = LatticeMethod::Subgroup)]
    pub method: LatticeMethod,
    /// Distance the Korobov search maximizes.
    #[arg(long, value_enum, default_value_t = Metric::L2)]
    pub metric: Metric,
    /// Algorithms 10/11: number of primes M.
    #[arg(long, default_value_t = SearchSpec::default().primes)]
    pub primes: usize,
    /// Algorithm 11: SCS sweeps T.
    #[arg(long, default_value_t = SearchSpec::default().sweeps)]
    pub sweeps: usize,
    /// Algorithm 11: how many of Algorithm 10's best candidates get SCS.
    #[arg(long, default_value_t = SearchSpec::default().top)]
    pub top: usize,
    /// Write the n x d points to a .csv or .npy file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Lattice constructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LatticeMethod {
    /// Closed form of thesis Theorem 13 / eq. (5.14).
    Subgroup,
    /// Exhaustive search over z = (1, a, a^2, ...) mod n.
    Korobov,
    /// Hua-Wang cyclotomic-field vector (p = smallest prime >= 2d + 3).
    Hua,
    /// Thesis Algorithm 10 (M primes, cos-based vectors), maximizing the l2 distance.
    Alg10,
    /// Thesis Algorithm 11 (Algorithm 10 + successive coordinate search), maximizing the l2 distance.
    Alg11,
}

/// Toroidal distance norm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Metric {
    /// l1-norm-based toroidal distance.
    L1,
    /// l2-norm-based toroidal distance.
    L2,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub use gradfree_experiments::run_spec::BoundsMode;

/// What `tell` does with NaN/inf objective values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NonFiniteArg {
    /// Stop with an error naming the point.
    Error,
    /// Rank the point worst (+inf) and go on.
    TreatAsInf,
}

#[derive(Args, Debug)]
pub struct OptimizeArgs {
    /// Algorithm (see `gradfree list`). Default: the recommended method, CMA-ES with BIPOP
    /// restarts (from uniform points of the problem's initial region) and quasi-Monte Carlo
    /// directions (`--param sampling=sphere-qmc`) and pycma's step-size damping for large
    /// populations (`--param damping=pycma`), whose restarts stop once they settle
    /// (`--settle-runs`, 2): on COCO's bbob suite (f1-f24, 15 instances,
    /// budget 10^4 d) it had a larger runtime-ECDF area than pycma's BIPOP-CMA-ES at d = 2, 5, 10
    /// and 20, and at d = 10 needed no more evaluations than pycma on 20 of 24 functions (user
    /// guide, docs/results/optimizers.md). The thesis algorithms keep their thesis defaults under their own
    /// names; INGO's fastest form measured is `--algo ingo --param step_size=tpa --param
    /// beta=<1.5/d> --param sampling=sphere-qmc --param cusp_guard=true --restarts bipop`, level
    /// with CMA-ES + IPOP on bbob at d = 10 and solving the thesis' functions at d = 100 (user guide,
    /// docs/results/optimizers.md, "Options that measurably help INGO"). `--algo surrogate`, for expensive functions: lq-CMA-ES
    /// (Hansen 2019), a linear-quadratic model ranks most of each population and only what it
    /// cannot rank is evaluated, with the default's BIPOP restarts and settle rule.
    #[arg(long)]
    pub algo: Option<String>,
    /// Problem (see `gradfree list`). Required unless --resume.
    #[arg(long)]
    pub problem: Option<String>,
    /// Dimension. Required unless --resume.
    #[arg(long)]
    pub dim: Option<usize>,
    /// Seed of the algorithm and of the initial point [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Seed of the problem instance (random data of quadratic, logistic, binary-reconstruction,
    /// rotation and shift); fixed by default so runs with different --seed see the same problem.
    #[arg(long)]
    pub problem_seed: Option<u64>,
    /// Rotate the problem by a random orthogonal matrix about its minimizer.
    #[arg(long)]
    pub rotate: bool,
    /// Shift the problem by a random vector in [-R, R]^d.
    #[arg(long, allow_hyphen_values = true, value_name = "R")]
    pub shift: Option<f64>,
    /// Initial mean as comma-separated numbers (default: uniform in the problem's initial region).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub x0: Option<Vec<f64>>,
    /// Initial scale (default: 0.5, or 0.3 x the domain width for bounded problems).
    #[arg(long, allow_hyphen_values = true)]
    pub sigma0: Option<f64>,
    /// Algorithm parameter KEY=VALUE (repeatable), e.g. `--param step_size=0.01`; `gradfree
    /// params ALGO` lists the keys with their defaults and ranges.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Restarts (default: none). `ipop` (Auger & Hansen 2005: the population doubles at each
    /// restart) or `bipop` (Hansen 2009: large IPOP runs interleaved with small-population runs of
    /// small random sigma0, each regime getting half of the evaluations), until the budget is
    /// spent; `ipop:K` / `bipop:K` for at most K (large) restarts; a bare `K` or `max` is IPOP.
    #[arg(long, value_name = "ipop|bipop[:K]|K|max")]
    pub restarts: Option<RestartCount>,
    /// Mean of each restart: the initial x0 (IPOP) or a uniform draw from the problem's initial region [default: x0].
    #[arg(long, value_enum)]
    pub restart_from: Option<RestartFrom>,
    /// Stop restarting once K converged runs in a row after the one that found the best point
    /// have each converged back to it (value within 1e-11 + 1e-10 |f|, point within 1e-2 sigma0
    /// sqrt(d)): the run ends as `restarts-settled`, a success. `off` (or 0) restarts until the
    /// budget or the target ends the run [default: 2 for the recommended method (no --algo) run
    /// without a target (`--no-target`, or a problem of unknown minimum without `--target`), off
    /// otherwise: with a target the restarts go on until it is reached or the budget is spent].
    #[arg(long, value_name = "K|off")]
    pub settle_runs: Option<Tol<u32>>,
    /// End a restart's run once it is converging to a value worse than the best of the earlier
    /// runs that ended flat: its last generation's values span at most R times the gap, and
    /// Aitken's extrapolation of its best values leaves at most 10 R times the gap to gain. R in
    /// (0, 1); `off` lets every run converge [default: 0.01 for the recommended method (no --algo),
    /// off otherwise].
    #[arg(long, value_name = "R|off")]
    pub worse_runs: Option<Tol<f64>>,
    /// Evaluation budget (default 10000 x dim).
    #[arg(long)]
    pub max_evals: Option<u64>,
    /// Generation budget.
    #[arg(long)]
    pub max_gens: Option<u64>,
    /// Stop when best f <= this (default: f* + 1e-10 when the minimum is known).
    #[arg(long, allow_hyphen_values = true)]
    pub target: Option<f64>,
    /// Do not stop at a default target.
    #[arg(long, conflicts_with = "target")]
    pub no_target: bool,
    /// Converged when the best values of the last --tol-f-window generations and all values of
    /// the last generation span less than this [default: 1e-11; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "F|off", help_heading = "Convergence")]
    pub tol_f: Option<Tol<f64>>,
    /// Generations the --tol-f history spans [default: 10 + ceil(30 d / popsize)].
    #[arg(long, help_heading = "Convergence")]
    pub tol_f_window: Option<usize>,
    /// Converged when the step length (largest coordinate standard deviation) falls below this
    /// [default: 1e-11; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "X|off", help_heading = "Convergence")]
    pub tol_x: Option<Tol<f64>>,
    /// Stop after more than N generations in a row whose best value equals their median (a
    /// plateau) [default: 1; `off` to disable].
    #[arg(long, value_name = "N|off", help_heading = "Convergence")]
    pub tol_flat: Option<Tol<u64>>,
    /// Stop when the best and median values make no progress over this many generations
    /// [default: 100 + ceil(100 d^1.5 / popsize); `off` to disable].
    #[arg(long, value_name = "N|off", help_heading = "Convergence")]
    pub tol_stagnation: Option<Tol<u64>>,
    /// Stop when the covariance's condition number exceeds this (CMA-ES, Fast-INGO)
    /// [default: 1e14; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "C|off", help_heading = "Convergence")]
    pub tol_condition: Option<Tol<f64>>,
    /// Stop as diverged when a generation's best value exceeds the best so far by more than
    /// this times max(1, |best|) [default: 1e12; `off` to disable].
    #[arg(long, allow_hyphen_values = true, value_name = "R|off", help_heading = "Convergence")]
    pub tol_diverge: Option<Tol<f64>>,
    /// Run until a budget or the target only: none of the convergence rules above apply unless
    /// given explicitly (the default when --restarts is given, whose restarts judge convergence).
    #[arg(long, help_heading = "Convergence")]
    pub no_convergence: bool,
    /// Wall-time budget in seconds.
    #[arg(long, allow_hyphen_values = true)]
    pub max_seconds: Option<f64>,
    /// Box handling [default: auto].
    #[arg(long, value_enum)]
    pub bounds: Option<BoundsMode>,
    /// What to do with NaN/inf objective values [default: error].
    #[arg(long, value_enum)]
    pub on_nonfinite: Option<NonFiniteArg>,
    /// Evaluate each population sequentially instead of on all cores.
    #[arg(long)]
    pub sequential: bool,
    /// Write a JSON-lines log of every generation (appended to on --resume).
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Write a checkpoint to this file (atomically) every --checkpoint-seconds (or
    /// --checkpoint-every generations) and at the end.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Generations between checkpoints (replaces the default 30-second interval unless
    /// --checkpoint-seconds is given too; a resumed run keeps the saved setting).
    #[arg(long)]
    pub checkpoint_every: Option<u64>,
    /// Wall-clock seconds between checkpoints [default: 30; a resumed run keeps the saved setting].
    #[arg(long, allow_hyphen_values = true)]
    pub checkpoint_seconds: Option<f64>,
    /// Resume the run saved in this checkpoint (budget flags given here replace the saved ones).
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Let a new run replace an existing checkpoint file (another run's).
    #[arg(long)]
    pub overwrite: bool,
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// JSON-lines logs written by `gradfree optimize --log` or `gradfree bo --log` (best f vs
    /// evaluations), or by `gradfree train --log` (test accuracy and label precision per epoch).
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Output image (.png or .svg).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Chart title [default: best f vs evaluations; training logs: test accuracy and label precision per epoch].
    #[arg(long)]
    pub title: Option<String>,
    /// Linear instead of log y axis.
    #[arg(long)]
    pub linear: bool,
    /// Plot the simple regret `best f - F_STAR` instead of best f (e.g. `--f-star 0` for the
    /// thesis' test functions; `gradfree bo` runs print f*).
    #[arg(long, allow_negative_numbers = true)]
    pub f_star: Option<f64>,
    /// Print one JSON object (output file, series) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment name, or `all` (see `gradfree reproduce --list`).
    #[arg(required_unless_present = "list")]
    pub experiment: Option<String>,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// Shrink budgets so each experiment runs in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Output folder for CSV and PNG files.
    #[arg(long, short, default_value = "out")]
    pub out: PathBuf,
    /// Base seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of independent runs per method (default: the document's, or fewer with --quick).
    #[arg(long)]
    pub runs: Option<usize>,
    /// Recompute every run (and overwrite the kept copy) instead of reusing the finished runs kept
    /// in `<out>/<experiment>/runs/`; without it, an interrupted experiment resumes where it stopped.
    #[arg(long)]
    pub recompute: bool,
    /// Print one JSON object (tables and files) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A convergence tolerance: a value, or `off`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tol<T> {
    /// Use this value.
    Value(T),
    /// Switch the rule off.
    Off,
}

impl<T: std::str::FromStr> std::str::FromStr for Tol<T> {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "off" {
            return Ok(Tol::Off);
        }
        s.parse::<T>().map(Tol::Value).map_err(|_| format!("`{s}`: expected a number or `off`"))
    }
}

/// `--restarts ipop|bipop[:K]|K|max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartCount {
    /// IPOP or BIPOP.
    pub scheme: RestartScheme,
    /// At most this many (large) restarts; `None`: until the budget is spent.
    pub max: Option<u32>,
}

impl std::str::FromStr for RestartCount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}`: expected ipop, bipop, ipop:K, bipop:K, a count K >= 0 or max");
        let (scheme, rest) = match s.split_once(':') {
            Some(("ipop", k)) => (RestartScheme::Ipop, Some(k)),
            Some(("bipop", k)) => (RestartScheme::Bipop, Some(k)),
            Some(_) => return Err(bad()),
            None => match s {
                "ipop" | "max" => (RestartScheme::Ipop, None),
                "bipop" => (RestartScheme::Bipop, None),
                _ => (RestartScheme::Ipop, Some(s)),
            },
        };
        let max = match rest {
            None => None,
            Some(k) => Some(k.parse::<u32>().map_err(|_| bad())?),
        };
        Ok(RestartCount { scheme, max })
    }
}

/// `--restart-from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RestartFrom {
    /// The initial point.
    X0,
    /// Uniform in the problem's initial region.
    Uniform,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Command {
        Cli::try_parse_from(std::iter::once("gradfree").chain(args.iter().copied())).expect("parses").command
    }

    /// A flag left out means the library's default: the command line writes none of its own, so
    /// none can drift (a literal default written in a flag would fail here).
    #[test]
    fn unset_flags_are_the_librarys_defaults() {
        let Command::Bo(bo) = parse(&["bo", "--problem", "ackley"]) else { panic!("bo") };
        assert_eq!(crate::bo::params(&bo).unwrap(), BoParams::default());
        assert_eq!((bo.dim, bo.rounds), (bo_run::DEFAULT_DIM, None));
        let Command::Lattice(l) = parse(&["lattice", "--dim", "3", "--n", "7"]) else { panic!("lattice") };
        assert_eq!(SearchSpec { primes: l.primes, sweeps: l.sweeps, top: l.top }, SearchSpec::default());
        let Command::Optimize(o) = parse(&["optimize", "--algo", "ingo", "--problem", "sphere", "--dim", "3"]) else { panic!("optimize") };
        assert_eq!(crate::optimize::stop_spec(&o), gradfree_core::StopSpec::default());
        assert!(o.sigma0.is_none() && o.x0.is_none() && o.bounds.is_none(), "the start and the bounds come from the problem");
        let Command::Infer(i) = parse(&["infer", "--data", "d.csv", "--target", "y"]) else { panic!("infer") };
        let run = crate::infer::run_spec(&i).unwrap();
        assert_eq!((run.spec, run.model), (gradfree_inference::InferenceSpec::default(), gradfree_inference::ModelSpec::default()));
    }
}
