//! The genetic-algorithm baseline of thesis sec. 3.7.3 (the thesis does not specify it; NOTES
//! (e.3) [AMBIG]). The variant here is the textbook generational GA:
//!
//! - the first generation is uniform over `{0..K-1}^d`;
//! - each child comes from two parents chosen by binary tournament (`tournament` = 2 contestants,
//!   the lower value wins), uniform crossover with probability `crossover` (0.9; else a copy of the
//!   first parent), then mutation of each gene with probability `mutation` (`1/d`) to a different
//!   category chosen uniformly (a bit flip when `K = 2`);
//! - the children replace the parents, except that the `elitism` (1) best parents survive in place
//!   of the worst children when they are better.
//!
//! Population size: the discrete INGO's `N` by default, so both spend the same evaluations per
//! generation.

use gradfree_core::StateCheck;
use gradfree_core::state as chk;
use gradfree_core::{AskTell, CoreError, Event, NonFinitePolicy, ParamGuard, Population};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::check_sizes;
use crate::points::{Work, rank_order};
use crate::progress::Progress;

/// Parameters of [`Ga`]; `None` takes the default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GaParams {
    /// Categories `K >= 2` of every gene. Default 2 (the CLI takes it from the problem).
    pub categories: usize,
    /// Population size. Default `20 + 4 floor(3 + floor(3 ln d)/2)`.
    pub popsize: Option<usize>,
    /// Per-gene mutation probability in [0, 1]. Default `1/d`.
    pub mutation: Option<f64>,
    /// Probability of uniform crossover (else the first parent is copied), in [0, 1]. Default 0.9.
    pub crossover: f64,
    /// Tournament size >= 1. Default 2.
    pub tournament: usize,
    /// Best parents kept over worse children, < popsize. Default 1.
    pub elitism: usize,
    /// NaN/inf handling in `tell`.
    pub on_nonfinite: NonFinitePolicy,
}

impl Default for GaParams {
    fn default() -> Self {
        GaParams {
            categories: 2,
            popsize: None,
            mutation: None,
            crossover: 0.9,
            tournament: 2,
            elitism: 1,
            on_nonfinite: NonFinitePolicy::Error,
        }
    }
}

/// [`GaParams`] validated for one dimension ([`ParamGuard`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GaChecked {
    k: usize,
    n: usize,
    mutation: f64,
    crossover: f64,
    tournament: usize,
    elitism: usize,
    policy: NonFinitePolicy,
}

impl ParamGuard for GaParams {
    type Checked = GaChecked;

    fn check(&self, d: usize) -> Result<GaChecked, CoreError> {
        let k = self.categories;
        let n = check_sizes(d, k, self.popsize)?;
        let mutation = self.mutation.unwrap_or(1.0 / d as f64);
        if !(0.0..=1.0).contains(&mutation) {
            return Err(CoreError::invalid("mutation", mutation, "in [0, 1]"));
        }
        if !(0.0..=1.0).contains(&self.crossover) {
            return Err(CoreError::invalid("crossover", self.crossover, "in [0, 1]"));
        }
        if self.tournament == 0 || self.tournament > n {
            return Err(CoreError::invalid("tournament", self.tournament, format!("in 1..={n} (popsize)")));
        }
        if self.elitism >= n {
            return Err(CoreError::invalid("elitism", self.elitism, format!("< popsize = {n}")));
        }
        Ok(GaChecked {
            k,
            n,
            mutation,
            crossover: self.crossover,
            tournament: self.tournament,
            elitism: self.elitism,
            policy: self.on_nonfinite,
        })
    }
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    vals: Vec<f64>,
    order: Vec<usize>,
    parent_order: Vec<usize>,
}

/// Generational GA with tournament selection, uniform crossover and per-gene mutation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ga {
    p: GaChecked,
    d: usize,
    /// Parents (`N x d` row-major) and their values; empty before the first tell.
    parents: Vec<f64>,
    #[serde(with = "gradfree_core::state::nonfinite_vec")]
    parent_f: Vec<f64>,
    /// Children of the pending generation.
    children: Vec<f64>,
    /// Per-coordinate average of the parents.
    average: Vec<f64>,
    #[serde(flatten)]
    progress: Progress,
    #[serde(skip)]
    scratch: Work<Scratch>,
}

impl Ga {
    /// A GA in dimension `d >= 1`.
    pub fn new(d: usize, params: &GaParams, seed: u64) -> Result<Self, CoreError> {
        let p = params.check(d)?;
        let (k, n) = (p.k, p.n);
        Ok(Ga {
            p,
            d,
            parents: Vec::new(),
            parent_f: Vec::new(),
            children: vec![0.0; n * d],
            average: vec![(k - 1) as f64 / 2.0; d],
            progress: Progress::new(seed),
            scratch: Work::default(),
        })
    }

    /// The current parents (`N x d` row-major; empty before the first generation is told).
    pub fn parents(&self) -> &[f64] {
        &self.parents
    }

    fn tournament(&mut self) -> usize {
        let mut best = self.progress.rng.random_range(0..self.p.n);
        for _ in 1..self.p.tournament {
            let c = self.progress.rng.random_range(0..self.p.n);
            if self.parent_f[c] < self.parent_f[best] {
                best = c;
            }
        }
        best
    }

    fn breed(&mut self) {
        let (d, k) = (self.d, self.p.k);
        for child in 0..self.p.n {
            let a = self.tournament();
            let b = self.tournament();
            let cross = self.progress.rng.random::<f64>() < self.p.crossover;
            for j in 0..d {
                let from = if cross && self.progress.rng.random::<bool>() { b } else { a };
                let mut gene = self.parents[from * d + j];
                if self.p.mutation > 0.0 && self.progress.rng.random::<f64>() < self.p.mutation {
                    // A different category, uniformly.
                    let other = self.progress.rng.random_range(0..k - 1);
                    let cur = gene as usize;
                    gene = if other >= cur { other + 1 } else { other } as f64;
                }
                self.children[child * d + j] = gene;
            }
        }
    }
}

impl AskTell for Ga {
    fn name(&self) -> &'static str {
        "ga"
    }

    fn dim(&self) -> usize {
        self.d
    }

    fn population_size(&self) -> usize {
        self.p.n
    }

    fn ask_into(&mut self, out: &mut Population) -> Result<(), CoreError> {
        if !self.progress.pending {
            if self.parents.is_empty() {
                let k = self.p.k;
                for v in self.children.iter_mut() {
                    *v = self.progress.rng.random_range(0..k) as f64;
                }
            } else {
                self.breed();
            }
            self.progress.pending = true;
        }
        out.resize(self.p.n, self.d);
        out.as_mut_slice().copy_from_slice(&self.children);
        Ok(())
    }

    fn tell(&mut self, population: &Population, values: &[f64]) -> Result<(), CoreError> {
        let (d, n) = (self.d, self.p.n);
        let sc = &mut self.scratch.0;
        self.progress.begin_tell(population, values, (d, n), self.p.policy, &mut sc.vals)?;
        if self.parents.is_empty() {
            self.parents = self.children.clone();
            self.parent_f = sc.vals.clone();
        } else {
            // Elitism: the best old parents replace the worst children they beat.
            rank_order(&self.parent_f, &mut sc.parent_order);
            rank_order(&sc.vals, &mut sc.order);
            for e in 0..self.p.elitism {
                let (elite, worst) = (sc.parent_order[e], sc.order[n - 1 - e]);
                if self.parent_f[elite] < sc.vals[worst] {
                    self.children[worst * d..(worst + 1) * d].copy_from_slice(&self.parents[elite * d..(elite + 1) * d]);
                    sc.vals[worst] = self.parent_f[elite];
                }
            }
            self.parents.copy_from_slice(&self.children);
            self.parent_f.copy_from_slice(&sc.vals);
        }
        self.average.fill(0.0);
        for row in self.parents.chunks_exact(d) {
            for (a, x) in self.average.iter_mut().zip(row) {
                *a += x / n as f64;
            }
        }
        Ok(())
    }

    /// The parents' per-coordinate average.
    fn mean(&self) -> &[f64] {
        &self.average
    }

    /// Largest standard deviation of a coordinate over the parents.
    fn scale(&self) -> f64 {
        if self.parents.is_empty() {
            return 0.0;
        }
        let (d, n) = (self.d, self.p.n);
        (0..d)
            .map(|j| (self.parents.chunks_exact(d).map(|r| (r[j] - self.average[j]).powi(2)).sum::<f64>() / n as f64).sqrt())
            .fold(0.0, f64::max)
    }

    fn take_events(&mut self) -> Vec<Event> {
        self.progress.take_events()
    }
}

/// Restored-state invariants: sizes from `d` and `N`, parents absent (before the first `tell`)
/// or `N` rows with a value each, genes that are category indices, rates in `[0, 1]`.
impl StateCheck for Ga {
    fn check_state(&self) -> Result<(), String> {
        let (d, p) = (self.d, &self.p);
        crate::sizes::state_sizes("GA", d, p.n, crate::sizes::Footprint::Diagonal)?;
        chk::count("categories", p.k, 2, 1 << 16)?;
        chk::in_range("mutation", p.mutation, 0.0, 1.0)?;
        chk::in_range("crossover", p.crossover, 0.0, 1.0)?;
        chk::count("tournament", p.tournament, 1, p.n)?;
        chk::count("elitism", p.elitism, 0, p.n - 1)?;
        let nd = chk::checked_len("children", d, p.n)?;
        chk::len("children", &self.children, nd)?;
        super::check_categories("children", &self.children, p.k)?;
        if !self.parents.is_empty() || !self.parent_f.is_empty() {
            chk::len("parents", &self.parents, nd)?;
            super::check_categories("parents", &self.parents, p.k)?;
            chk::len("parent_f", &self.parent_f, p.n)?;
            if let Some(i) = self.parent_f.iter().position(|v| v.is_nan()) {
                return Err(format!("parent_f[{i}] is NaN"));
            }
        }
        chk::finite_len("average", &self.average, d)
    }
}
