//! The command line's grammar: the commands, each with the Args its own module owns (the flags
//! several commands share are in [`crate::shared_flags`]).

use clap::{Parser, Subcommand};

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
    List(crate::list::ListArgs),
    /// Minimize a benchmark problem with an algorithm.
    Optimize(Box<crate::optimize::OptimizeArgs>),
    /// List an algorithm's parameters (`optimize --param KEY=VALUE`, Python keywords) with their
    /// accepted values, defaults and ranges.
    Params(crate::list::ParamsArgs),
    /// Plot best f vs evaluations from one or more JSON-lines logs (`optimize --log`).
    Plot(crate::plot::PlotArgs),
    /// Re-run an experiment of the implemented works (Lyu 2021 "the thesis", MiNES): print its
    /// table, write CSV and PNG.
    Reproduce(crate::reproduce::ReproduceArgs),
    /// Build a rank-1 lattice (subgroup closed form or Korobov search); print its generating
    /// vector and minimum toroidal distances; optionally write its points.
    Lattice(crate::lattice::LatticeArgs),
    /// Generate QMC points (Sobol, subgroup or Korobov lattice), optionally randomized.
    Sample(crate::sample::SampleArgs),
    /// Estimate the thesis' test integral (eq. 5.22) by randomized QMC, with a standard error.
    Integrate(crate::integrate::IntegrateArgs),
    /// Map data to random features of a kernel (Gaussian, arc-cosine) by i.i.d., orthogonal,
    /// circulant, QMC or spherical structured (SSF) projections; optionally report the Gram error.
    Features(Box<crate::features::FeaturesArgs>),
    /// Batch Bayesian optimization of a benchmark problem on its box (thesis ch. 4): a GP with
    /// ARD Matern 5/2 kernel, an initial rank-1 lattice design, then batches chosen by BKOP,
    /// GP-BUCB, GP-UCB-PE, constant-weight UCB, Bull's non-adaptive method or expected improvement.
    Bo(Box<crate::bo::BoArgs>),
    /// Confidence intervals from stochastic-gradient chains (Liang & Su 2019: MasGrad, SGD, their
    /// diffusions, MadProx; averaged SGD with random scaling, Lee et al. 2022) for a linear,
    /// logistic, Poisson, mixture or ReLU model on a .csv/.npy file, in memory or streamed.
    Infer(Box<crate::infer::InferArgs>),
    /// Train a classifier on noisy labels: the curriculum loss and NPCL (thesis ch. 8, Algorithm
    /// 14) or a baseline (cross-entropy, GCE, Co-teaching, hinge), with seeded label noise.
    Train(Box<crate::train::TrainArgs>),
}

#[cfg(test)]
mod tests {
    use gradfree_bo::BoParams;
    use gradfree_experiments::bo_run;
    use gradfree_qmc::lattice::search::SearchSpec;

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
