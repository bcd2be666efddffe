//! The parameters of the restart wrapper ([`Ipop`](super::Ipop)), checked once when it is built.

use gradfree_core::CoreError;
use serde::{Deserialize, Serialize};

use super::{RestartMean, RestartScheme};
use crate::EsError;

/// Parameters of [`Ipop`](super::Ipop).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IpopParams {
    /// Most restarts; `None`: no limit (the run ends on its budget or another stop rule).
    pub max_restarts: Option<u32>,
    /// Population growth per restart, >= 1. Default 2.
    pub popsize_factor: f64,
    /// Relative scale below which a run counts as converged, in (0, 1). Default 1e-40, not pycma's
    /// 1e-12: on the thesis' l_{1/2}-Ellipsoid (weights up to 1e6 on |x_i|^{1/2}) f = 1e-10 needs
    /// steps near 1e-32, and 1e-12 (and 1e-20) restarted INGO out of runs that reach the target
    /// alone (d = 20, 3 seeds). Converged runs on ordinary functions are caught by the flat rule.
    pub tol_x: f64,
    /// Mean of each restart.
    pub restart_mean: RestartMean,
    /// Largest population a restart may use (later restarts keep it). Default `max(N_0, 100 d)`,
    /// so that `--restarts max` on a large budget cannot grow the sample buffers without bound.
    pub max_popsize: Option<usize>,
    /// Whether the stagnation rule may restart a run. `None`: on, except for the INGO family and
    /// IGO (`ingo`, `ingostep`, `fast-ingo`, `igo`), whose populations keep improving slowly for
    /// longer than the rule's lag: with it, d = 20, 3 seeds, 4e5 evaluations, INGO solved neither
    /// Rastrigin10 (0/3, 3/3 without restarts) nor the l_{1/2}-Ellipsoid (0/3, 3/3 without).
    pub stagnation: Option<bool>,
    /// IPOP or BIPOP. Default IPOP.
    pub scheme: RestartScheme,
    /// Whether the flat-fitness rule may restart a run (pycma's `tolflatfitness = 1`): two whole
    /// generations in a row, every point evaluated, whose best value equals their 75%-quantile
    /// value (a plateau under most of the population). `None`: the algorithm's registry default,
    /// on for `lq-cmaes` only, whose model cannot rank a plateau (on bbob's step ellipsoid f7 at
    /// d = 5 its runs sat on plateaus that pycma's lq-CMA-ES leaves by this rule); the other
    /// methods keep their measured behaviour (their slower flat rule above).
    #[serde(default)]
    pub flat_fitness: Option<bool>,
    /// Stop restarting once this many converged runs in a row after the run that found the best
    /// point have each converged back to it (module documentation, "Settling"; a "re-found"
    /// rule in the spirit of pycma's `tolfun` across restarts): the wrapper then reports
    /// [`AskTell::settled`](gradfree_core::AskTell::settled) and the driver ends the run with
    /// [`gradfree_core::StopReason::RestartsSettled`]. `None` (the default, and older states):
    /// off, restarts go on until the budget or a target ends the run. The recommended method
    /// ([`crate::RECOMMENDED`]) uses 2, chosen on COCO's bbob suite (user guide, docs/results/optimizers.md).
    #[serde(default)]
    pub settle_runs: Option<u32>,
    /// End a run that is converging to a value worse than the best of the earlier runs that ended
    /// flat, with ratio `r` in (0, 1) (module documentation, "The
    /// worse-optimum rule"). Such a run can only refine a point that is not the answer; ended,
    /// its evaluations go to the next restart. `None` (the default, and older states): off. The
    /// recommended method ([`crate::RECOMMENDED`]) uses [`crate::recommended::WORSE_RUNS`] = 0.01,
    /// chosen on COCO's bbob suite (user guide, docs/results/optimizers.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worse_runs: Option<f64>,
}

impl Default for IpopParams {
    fn default() -> Self {
        IpopParams {
            max_restarts: None,
            popsize_factor: 2.0,
            tol_x: 1e-40,
            restart_mean: RestartMean::Initial,
            max_popsize: None,
            stagnation: None,
            scheme: RestartScheme::Ipop,
            settle_runs: None,
            flat_fitness: None,
            worse_runs: None,
        }
    }
}

/// Fails for a worse-optimum ratio outside (0, 1) ([`IpopParams::worse_runs`]).
pub(super) fn check_worse_runs(r: Option<f64>) -> Result<(), EsError> {
    match r {
        Some(r) if !(r > 0.0 && r < 1.0) => Err(CoreError::invalid("worse_runs", r, "in (0, 1) (None: off)").into()),
        _ => Ok(()),
    }
}
