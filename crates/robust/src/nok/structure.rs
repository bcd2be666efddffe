//! The choices of `B` (thesis sec. 7.3 and app. 10.26): `d x N` with unit columns and
//! `B B^T = (N/d) I_d`, so that `W = sqrt(d) R^T B` has `W W^T / N = I_d` (7.7).
//!
//! - [`Structure::Orthogonal`]: blocks of Haar orthogonal matrices (Yu et al. 2016, "Orthogonal
//!   random features"); `d | N`, `O(N d)` per product. `N < d` takes `N` orthonormal columns of
//!   one Haar matrix (`B^T B = I_N`), the width the auto choice takes there too.
//! - [`Structure::Ssf`]: the DFT rows of spherical structured features (Lyu 2017; thesis eq. 6.23)
//!   with frequencies from Algorithm 12 (a few sweeps over a random block of candidates, as the
//!   thesis' `LogEnergyOP_Demo.m` does); `O(N log N)` per product by one FFT (Theorem 20).
//! - [`Structure::Subgroup`]: the same with the closed-form subgroup frequencies (eq. 5.26):
//!   `n` is the least prime `>= N/2` with `d/2 | n - 1`, so the width may grow past `N`.
//!
//! The Fourier structures need `d` even and `N = 2n` with `n > d/2` (so `N >= d + 2`); their
//! randomization is the `+-1` diagonal of SSF or the phase rotation of app. 10.26
//! ([`SsfRotation`]).

use gradfree_core::GfRng;
use gradfree_features::LinearOp;
use gradfree_features::projection::{SsfFrequencies, SsfProjection, SsfRotation};
use gradfree_qmc::sphere::FourierSphere;
use serde::{Deserialize, Serialize};

use super::layer::block_orthogonal;
use crate::error::{Result, RobustError};

/// How `B` is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structure {
    /// [`Structure::Ssf`] where it applies (`d` even, `N` even and `>= d + 2`), else
    /// [`Structure::Orthogonal`].
    #[default]
    Auto,
    /// Blocks of Haar orthogonal `d x d` matrices; `d | N`, or `N < d` (orthonormal columns).
    Orthogonal,
    /// SSF's DFT rows with Algorithm 12's frequencies (FFT products).
    Ssf,
    /// SSF's DFT rows with the subgroup frequencies of eq. 5.26 (FFT products).
    Subgroup,
}

/// The names of [`Structure`]s.
pub const STRUCTURE_NAMES: &[&str] = &["auto", "orthogonal", "ssf", "subgroup"];

impl Structure {
    /// A structure by name.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "auto" => Ok(Structure::Auto),
            "orthogonal" => Ok(Structure::Orthogonal),
            "ssf" => Ok(Structure::Ssf),
            "subgroup" => Ok(Structure::Subgroup),
            _ => Err(RobustError::invalid("structure", name, format!("one of {}", STRUCTURE_NAMES.join(", ")))),
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            Structure::Auto => "auto",
            Structure::Orthogonal => "orthogonal",
            Structure::Ssf => "ssf",
            Structure::Subgroup => "subgroup",
        }
    }

    /// What [`Structure::Auto`] stands for at `d` and `N` (other structures stand for themselves).
    pub fn resolve(&self, d: usize, n: usize) -> Structure {
        match self {
            Structure::Auto if d.is_multiple_of(2) && n.is_multiple_of(2) && n >= d + 2 => Structure::Ssf,
            Structure::Auto => Structure::Orthogonal,
            s => *s,
        }
    }

    /// `B^T` for inputs of dimension `d` and (at least) `n` columns, with randomness from `rng`;
    /// a clear error naming `n_components` when the structure cannot have that width.
    pub fn build(&self, d: usize, n: usize, rotation: SsfRotation, rng: &mut GfRng) -> Result<Box<dyn LinearOp>> {
        if d == 0 {
            return Err(RobustError::bad("the input has no features (d = 0)"));
        }
        let fourier = |what: &str| {
            if !d.is_multiple_of(2) {
                return Err(RobustError::invalid(
                    "structure",
                    what.to_string(),
                    format!("orthogonal for odd d = {d} (the Fourier structures need an even d)"),
                ));
            }
            if n < d + 2 || !n.is_multiple_of(2) {
                return Err(RobustError::invalid("n_components", n, format!("an even number >= d + 2 = {} for structure {what}", d + 2)));
            }
            Ok(())
        };
        match self.resolve(d, n) {
            Structure::Auto | Structure::Orthogonal => Ok(Box::new(block_orthogonal(d, n, rng)?)),
            Structure::Ssf => {
                fourier("ssf")?;
                let freq = SsfFrequencies::Optimized { max_sweeps: 5, candidates: Some(128) };
                let p = SsfProjection::new(d, n, freq, rotation, rng).map_err(|e| RobustError::bad(e.to_string()))?;
                Ok(Box::new(p))
            }
            Structure::Subgroup => {
                fourier("subgroup")?;
                let m = d as u64 / 2;
                let mut half = (n as u64 / 2).max(m + 1);
                while !(gradfree_qmc::numtheory::is_prime(half) && (half - 1).is_multiple_of(m)) {
                    half += 1;
                }
                let sphere = FourierSphere::subgroup(d, half).map_err(|e| RobustError::bad(e.to_string()))?;
                Ok(Box::new(SsfProjection::with_sphere(d, 2 * half as usize, sphere, rotation, rng)))
            }
        }
    }
}
