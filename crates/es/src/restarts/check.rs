//! The restored-state invariants of the restart wrapper ([`Ipop`]), checked when a checkpoint
//! loads.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;

use super::{BLOCK, Ipop, RestartMean, RestartScheme, Restartable, check_worse_runs};

/// Restored-state invariants: the wrapped optimizer's own, a wrapped algorithm that is the one
/// named (and not itself a restart wrapper), a start point of the right dimension, parameters in
/// their ranges and at most `max_restarts` restarts.
impl<A: Restartable> StateCheck for Ipop<A> {
    fn check_state(&self) -> Result<(), String> {
        if self.inner.is_restart_wrapper() {
            return Err("a restart wrapper inside a restart wrapper".into());
        }
        self.inner.check_state()?;
        chk::require(
            "inner_name",
            self.inner.name() == self.inner_name,
            &format!("`{}` but the state is of `{}`", self.inner_name, self.inner.name()),
        )?;
        let d = self.inner.dim();
        chk::len("start.x0", &self.start.x0, d)?;
        chk::finite("start.x0", &self.start.x0)?;
        chk::positive("start.sigma0", self.start.sigma0)?;
        chk::in_range("popsize_factor", self.p.popsize_factor, 1.0, f64::MAX)?;
        chk::in_range("tol_x", self.p.tol_x, f64::MIN_POSITIVE, 1.0)?;
        if let RestartMean::Uniform(b) = &self.p.restart_mean {
            chk::count("restart box dimension", b.dim(), d, d)?;
        }
        chk::count("base_popsize", self.base_popsize, 1, usize::MAX)?;
        if let Some(max) = self.p.max_restarts {
            let large = if self.p.scheme == RestartScheme::Bipop { self.bipop.large_runs } else { self.restarts_done };
            chk::require("restarts_done", large <= max, "must not exceed max_restarts")?;
        }
        chk::require("bipop.large_runs", self.bipop.large_runs <= self.restarts_done, "must not exceed the restarts done")?;
        chk::require("settle_runs", self.p.settle_runs != Some(0), "must be >= 1 (None: off)")?;
        check_worse_runs(self.p.worse_runs).map_err(|e| e.to_string())?;
        if let Some(f) = self.settle.flat_best {
            chk::require("settle.flat_best", f.is_finite(), "the value must be finite")?;
        }
        let s = &self.settle;
        for (name, f, x) in [("settle.run_best", s.run_best_f, &s.run_best_x), ("settle.best", s.best_f, &s.best_x)] {
            match f {
                Some(f) => {
                    chk::require(name, f.is_finite(), "the value must be finite")?;
                    chk::len(name, x, d)?;
                    chk::finite(name, x)?;
                }
                None => chk::require(name, x.is_empty(), "a point without a value")?,
            }
        }
        chk::require("settle.refound", s.refound <= self.restarts_done + 1, "must not exceed the runs done")?;
        chk::require(
            "settle.settled",
            !s.settled || self.p.settle_runs.is_some_and(|k| s.refound >= k),
            "settled without the rule's count",
        )?;
        chk::count("recent", self.recent.len(), 0, self.windows().0)?;
        chk::count("block", self.block.len(), 0, BLOCK)
    }
}
