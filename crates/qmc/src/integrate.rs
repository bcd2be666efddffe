//! Equal-weight (randomized) QMC integration over `[0, 1)^d`:
//! `Q = 1/n sum_i f(x_i)`, repeated over `R` independent randomizations of the point set (random
//! shifts for lattices, scramblings for Sobol and Halton, fresh draws for Monte Carlo), reported as
//! the mean of the `R` estimates with the standard error `sd / sqrt(R)` — unbiased for every
//! randomized method, with an honest error bar (Owen 2013, ch. 17).

use gradfree_core::{derive_seed, rng_from_seed};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{Halton, Iid, LatticeSequence, QmcError, Rank1Lattice, Scramble, Sequence, Sobol};

/// How each replicate's points are made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum Rule {
    /// i.i.d. uniform points.
    MonteCarlo,
    /// A rank-1 lattice (its `n` is the number of points) with a fresh random shift per replicate.
    ShiftedLattice {
        /// The unshifted lattice.
        lattice: Rank1Lattice,
    },
    /// Sobol with linear matrix scrambling + digital shift.
    SobolLms,
    /// Sobol with Owen scrambling.
    SobolOwen,
    /// Halton with random digit permutations.
    Halton,
    /// Sobol with linear matrix scrambling + digital shift, then a uniform random shift mod 1
    /// (eq. 5.4) — the thesis' protocol for Fig. 5.1 ("for all the QMC methods, we use the random
    /// shift"); the extra shift breaks the digital-net structure and costs accuracy.
    SobolLmsRandomShift,
    /// Halton with random digit permutations, then a uniform random shift mod 1 (thesis protocol).
    HaltonRandomShift,
}

/// A sequence followed by a uniform random shift mod 1 of every point (eq. 5.4).
struct RandomlyShifted<S> {
    inner: S,
    shift: Vec<f64>,
}

impl<S: Sequence> RandomlyShifted<S> {
    fn new(inner: S, seed: u64) -> Self {
        use rand::RngExt;
        let mut rng = rng_from_seed(seed);
        let shift = (0..inner.dim()).map(|_| rng.random::<f64>()).collect();
        RandomlyShifted { inner, shift }
    }

    fn apply(&self, out: &mut [f64]) {
        for row in out.chunks_exact_mut(self.shift.len()) {
            for (v, s) in row.iter_mut().zip(&self.shift) {
                let w = *v + s;
                *v = if w >= 1.0 { w - 1.0 } else { w };
            }
        }
    }
}

impl<S: Sequence> Sequence for RandomlyShifted<S> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn point_into(&self, i: u64, out: &mut [f64]) -> Result<(), QmcError> {
        self.inner.point_into(i, out)?;
        let d = self.dim();
        self.apply(&mut out[..d]);
        Ok(())
    }
    fn position(&self) -> u64 {
        self.inner.position()
    }
    fn seek(&mut self, index: u64) -> Result<(), QmcError> {
        self.inner.seek(index)
    }
    fn fill(&mut self, count: usize, out: &mut [f64]) -> Result<(), QmcError> {
        self.inner.fill(count, out)?;
        self.apply(out);
        Ok(())
    }
}

/// A randomized-QMC estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Mean of the replicate estimates.
    pub value: f64,
    /// Standard error of `value`: sample standard deviation of the replicates over `sqrt(R)`
    /// (0 with one replicate).
    pub std_error: f64,
    /// The replicate estimates.
    pub replicates: Vec<f64>,
    /// Points per replicate.
    pub n: u64,
}

/// The point stream of replicate `r`.
pub fn replicate_points(rule: &Rule, d: usize, seed: u64, r: u64) -> Result<Box<dyn Sequence + Send>, QmcError> {
    let s = derive_seed(seed, r);
    Ok(match rule {
        Rule::MonteCarlo => Box::new(Iid::new(d, s)?),
        Rule::ShiftedLattice { lattice } => {
            if lattice.dim() != d {
                return Err(QmcError::invalid("lattice", format!("dimension {}", lattice.dim()), format!("d = {d}")));
            }
            Box::new(LatticeSequence::new(lattice.clone().random_shift(&mut rng_from_seed(s))))
        }
        Rule::SobolLms => Box::new(Sobol::new(d, Scramble::LmsShift { seed: s })?),
        Rule::SobolOwen => Box::new(Sobol::new(d, Scramble::Owen { seed: s })?),
        Rule::Halton => Box::new(Halton::new(d, Some(s))?),
        Rule::SobolLmsRandomShift => Box::new(RandomlyShifted::new(Sobol::new(d, Scramble::LmsShift { seed: s })?, derive_seed(s, 1))),
        Rule::HaltonRandomShift => Box::new(RandomlyShifted::new(Halton::new(d, Some(s))?, derive_seed(s, 1))),
    })
}

/// Estimates `int_{[0,1)^d} f` with `n` points per replicate and `replicates >= 1` replicates.
/// Points are generated in blocks and evaluated in parallel; a non-finite `f` value is an error
/// naming the point. With a progress callback: [`integrate_many`] with one output.
pub fn integrate<F>(f: F, d: usize, n: u64, rule: &Rule, replicates: usize, seed: u64) -> Result<Estimate, QmcError>
where
    F: Fn(&[f64]) -> f64 + Sync,
{
    let mut all = integrate_many(|x, out| out[0] = f(x), 1, d, n, rule, replicates, seed, &|_, _| {})?;
    Ok(all.remove(0))
}

/// Estimates the integrals of the `k` outputs of a vector-valued integrand on the same points,
/// calling `progress(points_done, points_total)` after every block of 4096 points (over all
/// replicates), e.g. for a progress bar:
/// `f(x, out)` writes `out[0..k]`. Replicate `r` uses the points of [`replicate_points`]`(rule, d,
/// seed, r)`, so ratios of two outputs (e.g. a marginal likelihood over a normalization constant)
/// are taken on common points. Values are computed in parallel and summed in point order: the
/// estimates do not depend on the number of threads. A non-finite value is an error naming the
/// point and the output.
#[allow(clippy::too_many_arguments)]
pub fn integrate_many<F>(
    f: F,
    k: usize,
    d: usize,
    n: u64,
    rule: &Rule,
    replicates: usize,
    seed: u64,
    progress: &dyn Fn(u64, u64),
) -> Result<Vec<Estimate>, QmcError>
where
    F: Fn(&[f64], &mut [f64]) + Sync,
{
    let total = n.saturating_mul(replicates as u64);
    if replicates == 0 {
        return Err(QmcError::invalid("replicates", 0, ">= 1"));
    }
    if n == 0 {
        return Err(QmcError::invalid("n", 0, ">= 1"));
    }
    if k == 0 {
        return Err(QmcError::invalid("outputs", 0, ">= 1"));
    }
    if let Rule::ShiftedLattice { lattice } = rule
        && lattice.n() != n
    {
        return Err(QmcError::invalid("n", n, format!("the lattice's n = {}", lattice.n())));
    }
    if matches!(rule, Rule::SobolLms | Rule::SobolOwen | Rule::SobolLmsRandomShift) && n > 1 << 32 {
        return Err(QmcError::invalid("n", n, "at most 2^32 points for Sobol (32-bit digits)"));
    }
    const BLOCK: usize = 4096;
    QmcError::check_memory(
        &format!("{replicates} replicates in dimension {d}"),
        (replicates as u128 * k as u128).saturating_add((BLOCK as u128 + 1) * (d as u128 + k as u128)),
    )?;
    let mut means = vec![Vec::with_capacity(replicates); k];
    let mut buf = vec![0.0; BLOCK * d];
    let mut fx = vec![0.0; BLOCK * k];
    let mut sums = vec![0.0; k];
    for r in 0..replicates {
        let mut seq = replicate_points(rule, d, seed, r as u64)?;
        sums.fill(0.0);
        let mut done = 0u64;
        while done < n {
            let count = (n - done).min(BLOCK as u64) as usize;
            let block = &mut buf[..count * d];
            seq.fill(count, block)?;
            let vals = &mut fx[..count * k];
            vals.par_chunks_mut(k).zip(block.par_chunks(d.max(1))).for_each(|(v, x)| f(x, v));
            if let Some(i) = vals.iter().position(|v| !v.is_finite()) {
                let what = if k == 1 { String::new() } else { format!(" output {}", i % k) };
                return Err(QmcError::invalid("f", format!("f(point {}){what} = {}", done + (i / k) as u64, vals[i]), "finite values"));
            }
            // Block sums first, then added to the running sums (the order of the one-output sums).
            for (j, s) in sums.iter_mut().enumerate() {
                *s += vals.chunks_exact(k).map(|row| row[j]).sum::<f64>();
            }
            done += count as u64;
            progress((r as u64).saturating_mul(n).saturating_add(done), total);
        }
        for (m, s) in means.iter_mut().zip(&sums) {
            m.push(s / n as f64);
        }
    }
    Ok(means.into_iter().map(|values| estimate(values, n)).collect())
}

/// Mean and standard error of replicate estimates.
fn estimate(values: Vec<f64>, n: u64) -> Estimate {
    let r = values.len();
    let mean = values.iter().sum::<f64>() / r as f64;
    let std_error = if r > 1 { (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (r - 1) as f64 / r as f64).sqrt() } else { 0.0 };
    Estimate { value: mean, std_error, replicates: values, n }
}
