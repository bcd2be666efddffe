//! One `gradfree bo` run of a benchmark problem: the problem, its seeds and the number of rounds
//! around a [`BoParams`] (whose defaults are the library's, thesis §4.7.2), built once here for the
//! command line and stored as its checkpoint's metadata.

use gradfree_bo::{BatchBo, BoParams, Method, Space};
use gradfree_problems::Problem;
use serde::{Deserialize, Serialize};

use crate::{Result, invalid};

/// Dimension of a run that does not say (the thesis' synthetic experiments, §4.7.2: d = 6).
pub const DEFAULT_DIM: usize = 6;
/// Rounds after the initial design of a run that does not say.
pub const DEFAULT_ROUNDS: u64 = 40;

/// What a checkpoint of `gradfree bo` stores besides the optimizer: the run's definition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoRunSpec {
    /// Registry name of the problem (it must have a box).
    pub problem: String,
    /// Dimension.
    pub dim: usize,
    /// Seed of the problem instance.
    pub problem_seed: u64,
    /// Seed of the method.
    pub seed: u64,
    /// Rounds after the initial design.
    pub rounds: u64,
    /// Points per round.
    pub batch: usize,
    /// Size of the initial design (resolved from the parameters).
    pub n_initial: usize,
}

impl BoRunSpec {
    /// A new run of `params` on `problem`: the parameters are checked (by the library, naming
    /// them), Bull's method is given the run's whole budget, and the budget must fit an exact GP.
    /// Returns the definition, the optimizer and the problem.
    pub fn new(
        problem: &str,
        dim: usize,
        problem_seed: u64,
        seed: u64,
        rounds: u64,
        mut params: BoParams,
    ) -> Result<(BoRunSpec, BatchBo, Box<dyn Problem>)> {
        let n0 = params.n_initial.unwrap_or_else(|| gradfree_bo::default_n_initial(dim)) as u128;
        let total = n0 + rounds as u128 * params.batch_size as u128;
        if params.method == Method::Bull {
            params.budget = Some(usize::try_from(total).unwrap_or(usize::MAX));
        }
        let n_initial = params.check(dim)?;
        let limit = gradfree_bo::gp::fit::MAX_OBSERVATIONS as u128;
        if total > limit {
            invalid!(
                "--rounds {rounds} with --batch {}: {total} evaluations; at most {limit} (an exact GP costs O(n^3) per round)",
                params.batch_size
            );
        }
        let p = gradfree_problems::build(problem, dim, problem_seed)?;
        let Some(dom) = p.domain() else {
            invalid!("problem {problem} has no box; Bayesian optimization needs one (thesis Table 4.4 problems have one)")
        };
        let space = Space::continuous(dom.lower().to_vec(), dom.upper().to_vec())?;
        let batch = params.batch_size;
        let bo = BatchBo::new(space, params, seed)?;
        Ok((BoRunSpec { problem: problem.to_string(), dim, problem_seed, seed, rounds, batch, n_initial }, bo, p))
    }

    /// A resumed run goes on to `rounds` rounds instead of its saved number, after `done` rounds
    /// (the checkpoint's): at least `done`, within the exact GP's limit, and for Bull's method
    /// its saved number (its design was sized from the budget when the run began).
    pub fn resume_rounds(&mut self, bo: &BatchBo, done: u64, rounds: u64) -> Result<()> {
        if rounds == self.rounds {
            return Ok(());
        }
        if bo.params().method == Method::Bull {
            invalid!("invalid --rounds {rounds}: a bull run keeps its {} rounds (its design was sized from them)", self.rounds);
        }
        if rounds < done {
            invalid!("invalid --rounds {rounds}: the checkpoint has already run {done} rounds; give at least {done}");
        }
        let total = self.n_initial as u128 + rounds as u128 * self.batch as u128;
        let limit = gradfree_bo::gp::fit::MAX_OBSERVATIONS as u128;
        if total > limit {
            invalid!(
                "invalid --rounds {rounds} with batch {}: {total} evaluations; at most {limit} (an exact GP costs O(n^3) per round)",
                self.batch
            );
        }
        self.rounds = rounds;
        Ok(())
    }

    /// The problem of a saved run.
    pub fn build_problem(&self) -> Result<Box<dyn Problem>> {
        Ok(gradfree_problems::build(&self.problem, self.dim, self.problem_seed)?)
    }

    /// Evaluations of the whole run of `bo`: the design and `rounds` batches, or for Bull's
    /// method its budget (its design is the budget but the last point).
    pub fn total_evaluations(&self, bo: &BatchBo) -> u64 {
        if bo.params().method == Method::Bull {
            bo.params().budget.unwrap_or(self.n_initial + 1) as u64
        } else {
            (self.n_initial as u64).saturating_add(self.rounds.saturating_mul(self.batch as u64))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_resolves_its_design_and_budget() {
        let (spec, bo, p) = BoRunSpec::new("ackley", 2, 0, 1, 3, BoParams { batch_size: 2, ..BoParams::default() }).unwrap();
        assert_eq!((spec.n_initial, spec.batch, p.name()), (gradfree_bo::default_n_initial(2), 2, "ackley"));
        assert_eq!(spec.total_evaluations(&bo), 10 + 6);
        let bull = BoParams { method: Method::Bull, ..BoParams::default() };
        let (spec, bo, _) = BoRunSpec::new("ackley", 2, 0, 1, 3, bull).unwrap();
        assert_eq!(spec.total_evaluations(&bo), 10 + 15);
        let err = |r: Result<(BoRunSpec, BatchBo, Box<dyn Problem>)>| r.err().expect("an error").to_string();
        assert!(err(BoRunSpec::new("sphere", 2, 0, 1, 3, BoParams::default())).contains("no box"));
        let e = err(BoRunSpec::new("ackley", 2, 0, 1, 3, BoParams { batch_size: 0, ..BoParams::default() }));
        assert!(e.contains("batch_size"), "{e}");
    }

    #[test]
    fn a_resumed_run_changes_its_rounds_within_what_is_done_and_allowed() {
        let (mut spec, bo, _) = BoRunSpec::new("ackley", 2, 0, 1, 30, BoParams::default()).unwrap();
        let e = spec.resume_rounds(&bo, 10, 3).unwrap_err().to_string();
        assert!(e.contains("--rounds 3") && e.contains("already run 10 rounds"), "{e}");
        spec.resume_rounds(&bo, 10, 12).unwrap();
        assert_eq!(spec.total_evaluations(&bo), 10 + 12 * 5);
        assert!(spec.resume_rounds(&bo, 10, u64::MAX).unwrap_err().to_string().contains("at most"));
        let bull = BoParams { method: Method::Bull, ..BoParams::default() };
        let (mut spec, bo, _) = BoRunSpec::new("ackley", 2, 0, 1, 3, bull).unwrap();
        spec.resume_rounds(&bo, 0, 3).unwrap();
        assert!(spec.resume_rounds(&bo, 0, 4).unwrap_err().to_string().contains("bull run keeps its 3 rounds"));
    }
}
