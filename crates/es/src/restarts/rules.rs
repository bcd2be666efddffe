//! The rules that end a run of the restart wrapper ([`Ipop`]; the module documentation of
//! [`crate::restarts`] lists them) and the bookkeeping they read: the flat window, the stagnation
//! blocks, the settle rule's best points and the worse-optimum rule's reference value.

use gradfree_core::stats::median_in_place;
use gradfree_core::{AskTell, Population};

use super::{BLOCK, Block, Ipop, Restartable};

/// The restart reason of the worse-optimum rule ([`crate::IpopParams::worse_runs`]).
pub const WORSE_OPTIMUM: &str = "converging to a worse optimum";

impl<A: Restartable> Ipop<A> {
    /// Records the best finite value of a generation of the current run.
    pub(super) fn track_run_best(&mut self, population: &Population, values: &[f64]) {
        let s = &mut self.settle;
        let best = values.iter().enumerate().filter(|(_, v)| v.is_finite()).min_by(|a, b| a.1.total_cmp(b.1));
        if let Some((i, &v)) = best
            && s.run_best_f.is_none_or(|b| v < b)
            && i < population.len()
        {
            s.run_best_f = Some(v);
            s.run_best_x.clear();
            s.run_best_x.extend_from_slice(population.row(i));
        }
    }

    /// With the settle rule on, whether the current run is the one that would complete the count
    /// and has re-found the best point of the runs before it and converged there in pycma's
    /// `tolfun` sense: its best values over the flat window and the last generation's values
    /// `spread` span at most [`settle_tolerance`]. That run ends at once, and the restarts settle
    /// (going on would only refine a point already known). Earlier re-finding runs end by the
    /// ordinary rules, so a run with the rule is the run without it cut short where it settles
    /// (the same restarts, seeds and starts up to there).
    pub(super) fn refound_now(&self, spread: (f64, f64)) -> bool {
        let s = &self.settle;
        let (Some(k), Some(b), Some(f)) = (self.p.settle_runs, s.best_f, s.run_best_f) else {
            return false;
        };
        if s.refound + 1 < k {
            return false;
        }
        let tol = settle_tolerance(b);
        if (f - b).abs() > tol || distance(&s.run_best_x, &s.best_x) > settle_distance(self.start.sigma0, self.dim()) {
            return false;
        }
        self.flat_range().is_some_and(|(lo, hi)| hi - lo <= tol) && spread.1 - spread.0 <= tol
    }

    /// Judges the run that ends for restart reason `why` against the best so far (module
    /// documentation, "Settling": it converged if it ended on tol-x, flat, the worse-optimum rule or
    /// one of the method's own convergence rules) and keeps the best value of the runs that ended
    /// flat for the worse-optimum rule; returns whether the restarts settled.
    pub(super) fn close_run(&mut self, why: &str) -> bool {
        let converged = matches!(
            why,
            "tol-x" | "flat" | WORSE_OPTIMUM | "re-found the best point" | "no effect axis" | "no effect coordinate" | "condition"
        );
        let dtol = settle_distance(self.start.sigma0, self.dim());
        let s = &mut self.settle;
        if matches!(why, "flat" | "re-found the best point")
            && let Some(f) = s.run_best_f
            && s.flat_best.is_none_or(|b| f < b)
        {
            s.flat_best = Some(f);
        }
        if let Some(f) = s.run_best_f.take() {
            let x = std::mem::take(&mut s.run_best_x);
            match s.best_f {
                Some(b) if f >= b - settle_tolerance(b) => {
                    let tol = settle_tolerance(b);
                    if converged && f <= b + tol && distance(&x, &s.best_x) <= dtol {
                        s.refound += 1;
                        if f < b {
                            s.best_f = Some(f);
                        }
                    } else if converged && f > b + tol {
                        s.refound = 0;
                    }
                }
                _ => {
                    s.best_f = Some(f);
                    s.best_x = x;
                    s.refound = 0;
                }
            }
        }
        s.settled = self.p.settle_runs.is_some_and(|k| s.refound >= k);
        s.settled
    }

    /// Generations in the flat window (`10 + ceil(30 d / N)`, pycma's `tolfun` history) and
    /// blocks in the stagnation lag (`100 + ceil(100 d^1.5 / N)` generations), for the current
    /// population size `N`.
    pub(super) fn windows(&self) -> (usize, usize) {
        let d = self.dim() as f64;
        let n = self.inner.generation_size() as f64;
        let flat = 10 + (30.0 * d / n).ceil() as usize;
        let stagnation = 100 + (100.0 * d.powf(1.5) / n).ceil() as usize;
        (flat, stagnation.div_ceil(BLOCK))
    }

    /// The range `(lo, hi)` of the best values over the flat window, once the run is that long.
    pub(super) fn flat_range(&self) -> Option<(f64, f64)> {
        (self.recent.len() >= self.windows().0)
            .then(|| self.recent.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v))))
    }

    /// The worse-optimum rule ([`crate::IpopParams::worse_runs`] = `r`): the run is converging to a
    /// value worse than the best of the earlier runs that ended flat. With the flat window full,
    /// its best values `b1 >= b2 >= b3` up to the end of each third of the window, `f*` that
    /// earlier best and the gap `g = b3 - f*` above [`settle_tolerance`]: the last generation's
    /// values span at most `r g` (the population is local at the scale of the gap) and Aitken's
    /// extrapolation of `b1, b2, b3` ([`aitken_remaining`]) leaves at most `10 r g` to gain (the run
    /// is slowing down, not making steady progress).
    pub(super) fn converging_to_worse(&self, spread: (f64, f64)) -> bool {
        let (Some(r), Some(f_star)) = (self.p.worse_runs, self.settle.flat_best) else {
            return false;
        };
        let w = self.windows().0;
        if self.recent.len() < w {
            return false;
        }
        let t = w / 3;
        let min = |a: usize, b: usize| self.recent.range(a..b).fold(f64::INFINITY, |m, &x| m.min(x));
        let b1 = min(0, w - 2 * t);
        let b2 = b1.min(min(w - 2 * t, w - t));
        let b3 = b2.min(min(w - t, w));
        let gap = b3 - f_star;
        gap > settle_tolerance(f_star) && spread.1 - spread.0 <= r * gap && aitken_remaining(b1, b2, b3) <= 10.0 * r * gap
    }

    /// Why the current run should restart, given the spread `(min, max)` of the last generation's
    /// values and the rule of [`AskTell::converged`] that fired on it, if any.
    pub(super) fn reason(&self, spread: (f64, f64), converged: Option<&'static str>) -> Option<&'static str> {
        let (_, lag) = self.windows();
        let k = self.blocks.len();
        if self.inner.failure().is_some() {
            Some("numerical failure")
        } else if !self.inner.mean().iter().all(|v| v.is_finite()) || !self.inner.scale().is_finite() {
            Some("diverged")
        } else if self.bipop.run_limit.is_some_and(|g| self.bipop.run_generations >= g) {
            Some("small-regime budget spent")
        } else if self.inner.scale() < self.p.tol_x * self.start.sigma0 {
            Some("tol-x")
        } else if converged.is_some() {
            converged
        } else if let Some((lo, hi)) = self.flat_range()
            && let tol = flat_tolerance(lo)
            // pycma's tolfun: the last generation's values are flat too (on a plateau the best
            // value stays put while the population still spreads, as on BBOB's step ellipsoid).
            && hi - lo <= tol
            && spread.1 - spread.0 <= tol
        {
            Some("flat")
        } else if self.converging_to_worse(spread) {
            Some(WORSE_OPTIMUM)
        } else if self.flat_fitness_run >= 2 {
            Some("flat fitness")
        } else if self.p.stagnation == Some(true) && k > lag && {
            let (now, then) = (self.blocks[k - 1], self.blocks[k - 1 - lag]);
            now.median_best >= then.median_best && now.median_median >= then.median_median
        } {
            Some("stagnation")
        } else {
            None
        }
    }

    /// Counts whole generations in a row whose best value equals their 75%-quantile value, every
    /// point evaluated ([`crate::IpopParams::flat_fitness`]; the count stays at 0 while the rule is off).
    pub(super) fn count_flat_fitness(&mut self, values: &[f64]) {
        if self.p.flat_fitness != Some(true) {
            return;
        }
        let n = self.inner.generation_size();
        if values.len() < n.max(2) {
            self.flat_fitness_run = 0;
            return;
        }
        self.sorted.clear();
        self.sorted.extend(values.iter().map(|&v| if v.is_nan() { f64::INFINITY } else { v }));
        self.sorted.sort_by(f64::total_cmp);
        let q = self.sorted[(0.75 * self.sorted.len() as f64) as usize];
        self.flat_fitness_run = if self.sorted[0] < q { 0 } else { self.flat_fitness_run.saturating_add(1) };
    }

    /// Records one generation's values: its best in the flat window, its best and median in the
    /// current stagnation block.
    pub(super) fn record(&mut self, values: &[f64]) {
        self.sorted.clear();
        self.sorted.extend(values.iter().copied().filter(|v| !v.is_nan()));
        if self.sorted.is_empty() {
            return;
        }
        let m = median_in_place(&mut self.sorted);
        // median_in_place sorts: the first value is the generation's best.
        let best = self.sorted[0];
        let (flat, lag) = self.windows();
        while self.recent.len() >= flat {
            self.recent.pop_front();
        }
        self.recent.push_back(best);
        self.block.push((best, m));
        if self.block.len() < BLOCK {
            return;
        }
        self.sorted.clear();
        self.sorted.extend(self.block.iter().map(|b| b.0));
        let median_best = median_in_place(&mut self.sorted);
        self.sorted.clear();
        self.sorted.extend(self.block.iter().map(|b| b.1));
        let median_median = median_in_place(&mut self.sorted);
        self.block.clear();
        if self.blocks.len() > lag {
            self.blocks.pop_front();
        }
        self.blocks.push_back(Block { median_best, median_median });
    }
}

/// The flat rule's tolerance at best value `f`: `min(1e-12 (1 + |f|), 1e-3 |f|)`. The first term
/// is pycma's `tolfun` in relative form; the second keeps it from calling a run flat that still
/// improves in relative terms as `f` approaches 0 (INGO + `tpa` on the l1-Ellipsoid at d = 100
/// spans 7e-13 over a window at f = 1.08e-10, 0.7% of f, on its way to 1e-10). A plateau
/// (identical values) is flat at any `f`.
pub fn flat_tolerance(f: f64) -> f64 {
    (1e-12 * (1.0 + f.abs())).min(1e-3 * f.abs())
}

/// The settle rule's tolerance on values at best value `f`: `1e-11 + 1e-10 |f|` (pycma's
/// `tolfun`, 1e-11, plus a relative part for values far from 0, where converged runs agree only to
/// about 1e-12 |f|; [`crate::IpopParams::settle_runs`]).
pub fn settle_tolerance(f: f64) -> f64 {
    1e-11 + 1e-10 * f.abs()
}

/// The settle rule's tolerance on points: `1e-2 sigma0 sqrt(d)`, a hundredth of the initial
/// search radius (converged runs on the same minimum agree far more closely; distinct local
/// minima of the multimodal bbob functions lie much further apart) ([`crate::IpopParams::settle_runs`]).
pub fn settle_distance(sigma0: f64, d: usize) -> f64 {
    1e-2 * sigma0 * (d as f64).sqrt()
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

/// What Aitken's delta-squared extrapolation of the decreasing values `b1 >= b2 >= b3` (best values
/// at equal steps) leaves to gain after `b3`: the geometric series `d2 q / (1 - q)` with
/// `d1 = b1 - b2`, `d2 = b2 - b3` and `q = d2 / d1` (exact when `b_k - b_inf` falls by a constant
/// factor per step, as a run converging to a local minimum does); 0 when the last step gained
/// nothing, and infinite when it gained as much as the one before (steady, not slowing, progress).
pub fn aitken_remaining(b1: f64, b2: f64, b3: f64) -> f64 {
    let (d1, d2) = (b1 - b2, b2 - b3);
    if d2 <= 0.0 {
        0.0
    } else if d2 >= d1 {
        f64::INFINITY
    } else {
        let q = d2 / d1;
        d2 * q / (1.0 - q)
    }
}
