//! The experiments of the source documents, one file per figure or table family. Each is a
//! function from a [`Ctx`](crate::Ctx) to a [`Report`](crate::Report).

pub mod bo_bull;
pub mod bo_runs;
pub mod bo_synthetic;
pub mod bo_tasks;
pub mod boltzmann;
#[cfg(feature = "train")]
pub mod curriculum;
pub mod inference_coverage;
pub mod inference_default;
pub mod inference_random_scaling;
pub mod ingo_discrete;
pub mod ingo_rl;
pub mod ingo_synthetic;
pub mod kernel_error;
pub mod lattice_kernel;
pub mod lattice_search;
pub mod lattice_tables;
pub mod masgrad;
pub mod masgrad_relu;
pub mod mines_logistic;
pub mod mines_synthetic;
pub mod nok_descent;
#[cfg(feature = "train")]
pub mod nok_noise;
#[cfg(feature = "train")]
pub mod qmc_generative;
pub mod qmc_integration;
#[cfg(feature = "train")]
pub mod soft_hinge;
pub mod sphere_coherence;
pub mod ssf_accuracy;
pub mod ssf_convergence;
pub mod ssf_speedup;
pub mod test_functions;
#[cfg(feature = "train")]
pub mod train_runs;

use crate::Registered;

/// The robust-learning experiments' computations, or an error saying how to build them.
#[cfg(feature = "train")]
mod trained {
    pub use super::curriculum::{run_misspecified, run_noise};
    pub use super::nok_noise::run as run_nok_noise;
    pub use super::qmc_generative::run as run_qmc_generative;
    pub use super::soft_hinge::run as run_soft_hinge;
}
#[cfg(not(feature = "train"))]
#[allow(non_upper_case_globals)]
mod trained {
    use crate::{Ctx, Report, Result};
    fn needs_train(_: &Ctx) -> Result<Report> {
        Err(crate::ExperimentError::Invalid(
            "this experiment trains neural networks: build gradfree-experiments with its `train` feature (the gradfree binary has it)"
                .into(),
        ))
    }
    pub const run_noise: fn(&Ctx) -> Result<Report> = needs_train;
    pub const run_misspecified: fn(&Ctx) -> Result<Report> = needs_train;
    pub const run_soft_hinge: fn(&Ctx) -> Result<Report> = needs_train;
    pub const run_nok_noise: fn(&Ctx) -> Result<Report> = needs_train;
    pub const run_qmc_generative: fn(&Ctx) -> Result<Report> = needs_train;
}

/// Every experiment, in the order `reproduce all` runs them.
pub const ALL: &[Registered] = &[
    Registered {
        name: "test-functions",
        source: "thesis Tables 3.1, 4.4; MiNES Table 1; thesis sec. 3.7.3",
        summary: "the benchmark functions: formulas, domains, minimizers, f(x*) checks, 2-D landscapes",
        run: test_functions::run,
    },
    Registered {
        name: "ingo-synthetic",
        source: "thesis sec. 3.7.1, Fig. 3.1",
        summary: "Table 3.1 functions at d=100: INGO, INGOstep, Fast-INGO, IGO, CMA-ES, ES; log10 f vs evaluations",
        run: ingo_synthetic::run,
    },
    Registered {
        name: "ingo-discrete",
        source: "thesis sec. 3.7.3, Fig. 3.3",
        summary: "binary reconstruction, d=100..2000: discrete INGO (with/without baseline) vs GA; mean regret vs evaluations",
        run: ingo_discrete::run,
    },
    Registered {
        name: "ingo-rl",
        source: "thesis sec. 3.7.2, Fig. 3.2",
        summary: "MuJoCo policy search (Swimmer, HalfCheetah, HumanoidStandup, InvertedDoublePendulum): Fast-INGO vs ES vs ASEBO vs ARS; rollouts in Python",
        run: ingo_rl::run,
    },
    Registered {
        name: "mines-synthetic",
        source: "MiNES sec. 6.1, Fig. 1",
        summary: "ssphere d=400, quadratic d=200 (cond 2.306e3), diffpow d=100: MiNES, DF, NES, CMA-ES",
        run: mines_synthetic::run,
    },
    Registered {
        name: "mines-logistic",
        source: "MiNES sec. 6.2, Fig. 2",
        summary: "l2-logistic regression on breast-cancer and digits (odd/even): train loss and test accuracy",
        run: mines_logistic::run,
    },
    Registered {
        name: "bo-bull",
        source: "thesis sec. 4.7.1, Fig. 4.3",
        summary: "Rosenbrock and Ackley, d=6: adaptive batch BO (BKOP) vs Bull's non-adaptive batch; simple regret",
        run: bo_bull::run,
    },
    Registered {
        name: "bo-synthetic",
        source: "thesis sec. 4.7.2, Fig. 4.5",
        summary: "Table 4.4 functions, d=6, L=5 and 10: BKOP vs GP-BUCB vs GP-UCB-PE; simple regret vs evaluations",
        run: bo_synthetic::run,
    },
    Registered {
        name: "bo-tasks",
        source: "thesis sec. 4.7.3-4.7.4, Fig. 4.4",
        summary: "tuning a feature classifier on Fashion-MNIST (mixed variables) and 4-d robot pushing (30 goals): BKOP vs GP-BUCB vs GP-UCB-PE",
        run: bo_tasks::run,
    },
    Registered {
        name: "lattice-search",
        source: "thesis sec. 4.6.4, Tables 4.1-4.3",
        summary: "min distance of 1000-3000 lattice points, d=10..50: Algorithm 10, Korobov, SCS, Algorithm 11",
        run: lattice_search::run,
    },
    Registered {
        name: "lattice-distances",
        source: "thesis sec. 5.5.1, Tables 5.1-5.2",
        summary: "min l1/l2 toroidal distance of SubGroup and Korobov-searched lattices, d=50..500, vs the printed values",
        run: lattice_tables::distances,
    },
    Registered {
        name: "lattice-timing",
        source: "thesis sec. 5.5.1, timing table",
        summary: "construction time of SubGroup lattices and of the Korobov search, d=500 and 1000",
        run: lattice_tables::timing,
    },
    Registered {
        name: "sphere-coherence",
        source: "thesis sec. 5.6, Table 5.3",
        summary: "mutual coherence of SubGroup sphere points, Algorithm 12's (Lyu) and i.i.d. Gaussian directions, d=50..1000",
        run: sphere_coherence::run,
    },
    Registered {
        name: "qmc-integration",
        source: "thesis sec. 5.5.2, Fig. 5.1",
        summary: "integration error of exp(sum x_j j^-2) vs n, d=100 and 500: MC, Hua, Halton, Sobol, Korobov, SubGroup",
        run: qmc_integration::run,
    },
    Registered {
        name: "boltzmann",
        source: "thesis sec. 5.5.4, Fig. 5.4",
        summary: "normalization constant and marginal likelihood of a continuous Boltzmann machine: MC, SubGroup, Sobol",
        run: boltzmann::run,
    },
    Registered {
        name: "lattice-kernel",
        source: "thesis sec. 5.5.3, Fig. 5.2",
        summary: "Gram errors of QMC features on DNA (Gaussian, arc-cosine 0/1): SubGroup vs Hua lattices, Halton, Sobol, MC",
        run: lattice_kernel::run,
    },
    Registered {
        name: "ssf-convergence",
        source: "thesis sec. 6.6.1, Fig. 6.1",
        summary: "Algorithm 12 (coordinate ascent on the log-energy) for (m, n) = (160, 1600): -J per sweep",
        run: ssf_convergence::run,
    },
    Registered {
        name: "ssf-speedup",
        source: "thesis sec. 6.6.1, Fig. 6.2",
        summary: "feature-map construction time vs d (N = 2d): Circulant, Halton, Sobol, SSF as speed-up over Gaussian",
        run: ssf_speedup::run,
    },
    Registered {
        name: "ssf-accuracy",
        source: "thesis sec. 6.6.2, Fig. 6.3",
        summary: "Gram errors on Fashion-MNIST and DNA (Gaussian, arc-cosine 0/1), N = 2d..5d: Gaussian, Circulant, Halton, Sobol, SSF",
        run: ssf_accuracy::run,
    },
    Registered {
        name: "masgrad-linear",
        source: "Liang & Su 2019, sec. 7, Fig. 1, App. C",
        summary: "fixed-design linear regression (cond 30.98): MasGrad, diff_MasGrad, SGD, diff_SGD chains with 95% bands; log error; KS to the diffusion",
        run: masgrad::run_linear,
    },
    Registered {
        name: "masgrad-logistic",
        source: "Liang & Su 2019, sec. 7, Fig. 2, App. C",
        summary: "logistic regression (N = 500, n = 25, eta = 0.2): the four processes with 95% bands; log error; KS to the diffusion",
        run: masgrad::run_logistic,
    },
    Registered {
        name: "masgrad-mixture",
        source: "Liang & Su 2019, sec. 7, Fig. 3, App. C",
        summary: "1-D Gaussian mixture, 3 unknown means, SNR 3.3 and 1: the four processes with 95% bands; log error; KS to the diffusion",
        run: masgrad::run_mixture,
    },
    Registered {
        name: "masgrad-relu",
        source: "Liang & Su 2019, sec. 7, Fig. 4, App. C",
        summary: "two-layer ReLU network: diff_MasGrad vs SGD population loss over 50 experiments (paper: 45 of 50); coordinates 2 and 6",
        run: masgrad_relu::run_relu,
    },
    Registered {
        name: "inference-coverage",
        source: "Chen, Lee, Tong & Zhang 2020 sec. 5 protocol; Liang & Su 2019; Lee et al. 2022",
        summary: "coverage and width of 95% intervals, linear and logistic, 3 designs, d = 5 and 20: Wald, one-pass MLE, random scaling, MasGrad (batch V, beta = N)",
        run: inference_coverage::run_coverage,
    },
    Registered {
        name: "inference-default",
        source: "Chen, Lee, Tong & Zhang 2020 sec. 5 and Lee, Liao, Seo & Shin 2022 sec. 5 designs; Schifano et al. 2016",
        summary: "coverage of the default intervals (maximum likelihood, in memory and streamed) over 1000 replications of 14 designs, widths against Wald's, random scaling beside",
        run: inference_default::run_default,
    },
    Registered {
        name: "inference-random-scaling",
        source: "Lee, Liao, Seo & Shin 2022 (random scaling); Liang & Su 2019 sec. 7 (mixture, ReLU network)",
        summary: "coverage of random scaling's intervals with the defaults, truth known: mixtures, ReLU networks, correlated linear; warned share; 500 replications",
        run: inference_random_scaling::run_random_scaling,
    },
    Registered {
        name: "curriculum-noise",
        source: "thesis sec. 8.3.1, Figs. 8.1-8.3",
        summary: "Fashion-MNIST with Symmetry-20/50% and Pair-35/45% label noise: CE, GCE, Co-teaching, CL, NPCL; test accuracy and label precision per epoch",
        run: trained::run_noise,
    },
    Registered {
        name: "curriculum-misspecified",
        source: "thesis sec. 8.3.1, Table 8.4",
        summary: "NPCL with eps at 0.5-1.5 x the true rate; the noise rate estimated from 500 trusted labels and from anchor points",
        run: trained::run_misspecified,
    },
    Registered {
        name: "nok-descent",
        source: "thesis sec. 7.2-7.3, Theorems 21 and 23; eq. 7.16-7.17",
        summary: "the NOK objective (7.8) per layer for every activation of Table 7.1 and ReLU, SSF and orthogonal B, on images; the unsupervised fit's objective per layer and R-step",
        run: nok_descent::run,
    },
    Registered {
        name: "nok-noise",
        source: "thesis sec. 7.6 (small scale)",
        summary: "CNN on Fashion-MNIST: vanilla, + 3x3 mean / median filter, + NOK block; test accuracy under Gaussian and Laplace input noise and white-box FGSM, 5 seeds x stored models",
        run: trained::run_nok_noise,
    },
    Registered {
        name: "qmc-generative",
        source: "thesis sec. 5.7-5.8 (small scale)",
        summary: "autoencoder with the inverse-CDF encoder F(eps, x) = G1(x) + G2(eps) on Fashion-MNIST: eps from the subgroup rank-1 lattice (n = 12k + 1) vs i.i.d.; reconstruction and sample MMD per epoch, samples",
        run: trained::run_qmc_generative,
    },
    Registered {
        name: "soft-hinge",
        source: "thesis app. 10.38, Fig. 10.1",
        summary: "soft vs hard multi-class hinge, Adam and SGD, clean Fashion-MNIST: training and test accuracy per epoch",
        run: trained::run_soft_hinge,
    },
];
