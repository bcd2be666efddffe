//! The named integration rules of `gradfree integrate` and the QMC experiments: each name gives a
//! [`Rule`] of `gradfree_qmc::integrate` (lattices are built here, with the cost guard of the
//! Korobov search).

use gradfree_qmc::integrate::Rule;
use gradfree_qmc::lattice::search::{MAX_SEARCH_OPERATIONS, korobov_operations};
use gradfree_qmc::quality::Norm;
use gradfree_qmc::{hua, korobov_search, subgroup};

use crate::{ExperimentError, Result};

/// An integration rule by name (thesis sec. 5.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Plain Monte Carlo.
    Mc,
    /// Randomly shifted subgroup rank-1 lattice.
    Subgroup,
    /// Randomly shifted Korobov-searched lattice (l2).
    Korobov,
    /// Randomly shifted Hua-Wang lattice.
    Hua,
    /// Sobol, linear matrix scrambling + digital shift.
    Sobol,
    /// Sobol, Owen scrambling.
    SobolOwen,
    /// Halton with random digit permutations.
    Halton,
    /// Sobol (LMS + digital shift) plus a random shift mod 1 (the thesis' Fig. 5.1 protocol).
    SobolShifted,
    /// Halton (permuted) plus a random shift mod 1 (the thesis' Fig. 5.1 protocol).
    HaltonShifted,
}

impl Method {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Mc => "mc",
            Method::Subgroup => "subgroup",
            Method::Korobov => "korobov",
            Method::Hua => "hua",
            Method::Sobol => "sobol",
            Method::SobolOwen => "sobol-owen",
            Method::Halton => "halton",
            Method::SobolShifted => "sobol-shifted",
            Method::HaltonShifted => "halton-shifted",
        }
    }

    /// The rule with `n` points in dimension `d`. A Korobov search above 2^42 operations (over an
    /// hour) is refused before it starts.
    pub fn rule(self, d: usize, n: u64) -> Result<Rule> {
        let ops = korobov_operations(d, n);
        if self == Method::Korobov && ops > MAX_SEARCH_OPERATIONS {
            return Err(ExperimentError::Invalid(format!(
                "--n {n} --dim {d}: the Korobov search needs about {ops:.1e} operations (over an hour; the limit is 2^42 = 4.4e12); use a smaller n, or --method subgroup"
            )));
        }
        Ok(match self {
            Method::Mc => Rule::MonteCarlo,
            Method::Subgroup => Rule::ShiftedLattice { lattice: subgroup(d, n)? },
            Method::Korobov => Rule::ShiftedLattice { lattice: korobov_search(d, n, Norm::L2, &|_, _| {})?.lattice },
            Method::Hua => Rule::ShiftedLattice { lattice: hua(d, n)? },
            Method::Sobol => Rule::SobolLms,
            Method::SobolOwen => Rule::SobolOwen,
            Method::Halton => Rule::Halton,
            Method::SobolShifted => Rule::SobolLmsRandomShift,
            Method::HaltonShifted => Rule::HaltonRandomShift,
        })
    }
}
