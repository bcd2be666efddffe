//! The search space: a box with continuous, integer and categorical coordinates. The GP works in
//! the unit cube; integer and categorical coordinates are rounded inside the acquisition (the
//! transformation of Garrido-Merchán & Hernández-Lobato 2020, "Dealing with categorical and
//! integer-valued variables in Bayesian optimization with Gaussian processes"), so the model and
//! the acquisition only ever see values the objective accepts.

use gradfree_core::Bounds;
use serde::{Deserialize, Serialize};

use crate::BoError;

/// The type of one coordinate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum VarKind {
    /// A real number in `[lower, upper]`.
    #[default]
    Continuous,
    /// An integer in `[lower, upper]` (both integers).
    Integer,
    /// One of `upper − lower + 1` unordered choices, coded `lower, lower + 1, …, upper`.
    Categorical,
}

/// A box `[lower, upper]` ([`Bounds`]) with a kind per coordinate, validated once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Space {
    #[serde(flatten)]
    bounds: Bounds,
    kinds: Vec<VarKind>,
}

impl Space {
    /// A box of continuous coordinates.
    pub fn continuous(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, BoError> {
        let d = lower.len();
        Space::new(lower, upper, vec![VarKind::Continuous; d])
    }

    /// Checks the box: same lengths, at least one coordinate, finite `lower < upper` with a
    /// width of at least `1e-9 max(1, |lower|, |upper|)` (narrower boxes leave too few distinct
    /// doubles to model), integer bounds for integer and categorical coordinates.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>, kinds: Vec<VarKind>) -> Result<Self, BoError> {
        let d = lower.len();
        if d == 0 {
            return Err(BoError::invalid("bounds", "[]", "at least one coordinate"));
        }
        if upper.len() != d || kinds.len() != d {
            return Err(BoError::BadInput(format!("{d} lower bounds, {} upper bounds and {} variable kinds", upper.len(), kinds.len())));
        }
        for i in 0..d {
            let (lo, hi) = (lower[i], upper[i]);
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return Err(BoError::invalid("bounds", format!("[{lo}, {hi}] at coordinate {i}"), "finite with lower < upper"));
            }
            let scale = 1f64.max(lo.abs()).max(hi.abs());
            if hi - lo < 1e-9 * scale {
                return Err(BoError::invalid(
                    "bounds",
                    format!("[{lo}, {hi}] at coordinate {i} (width {:e})", hi - lo),
                    "at least 1e-9 x max(1, |lower|, |upper|) wide: fix the coordinate instead of searching it",
                ));
            }
            if kinds[i] != VarKind::Continuous && (lo.fract() != 0.0 || hi.fract() != 0.0) {
                return Err(BoError::invalid("bounds", format!("[{lo}, {hi}] at integer coordinate {i}"), "integers"));
            }
        }
        Ok(Space { bounds: Bounds::new(lower, upper)?, kinds })
    }

    /// The box.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Number of coordinates.
    pub fn dim(&self) -> usize {
        self.bounds.dim()
    }

    /// Lower bounds.
    pub fn lower(&self) -> &[f64] {
        self.bounds.lower()
    }

    /// Upper bounds.
    pub fn upper(&self) -> &[f64] {
        self.bounds.upper()
    }

    /// Coordinate kinds.
    pub fn kinds(&self) -> &[VarKind] {
        &self.kinds
    }

    /// Whether any coordinate is integer or categorical.
    pub fn has_discrete(&self) -> bool {
        self.kinds.iter().any(|k| *k != VarKind::Continuous)
    }

    /// Unit-cube coordinates of `x`; an error naming the coordinate if `x` lies outside the box
    /// (by more than `1e-9` of its width) or is not finite.
    pub fn to_unit(&self, x: &[f64], out: &mut [f64]) -> Result<(), BoError> {
        if x.len() != self.dim() {
            return Err(BoError::BadInput(format!("a point of dimension {} in a space of dimension {}", x.len(), self.dim())));
        }
        let (lower, upper) = (self.lower(), self.upper());
        for i in 0..x.len() {
            let w = upper[i] - lower[i];
            let u = (x[i] - lower[i]) / w;
            if !u.is_finite() || !(-1e-9..=1.0 + 1e-9).contains(&u) {
                return Err(BoError::BadInput(format!(
                    "point coordinate {i} = {} is outside the search box [{}, {}]",
                    x[i], lower[i], upper[i]
                )));
            }
            out[i] = u.clamp(0.0, 1.0);
        }
        Ok(())
    }

    /// The point of the box at unit-cube coordinates `u` (clamped to the cube), with integer and
    /// categorical coordinates rounded to the nearest allowed value.
    pub fn from_unit(&self, u: &[f64], out: &mut [f64]) {
        let (lower, upper) = (self.lower(), self.upper());
        for i in 0..u.len() {
            let w = upper[i] - lower[i];
            let x = lower[i] + w * u[i].clamp(0.0, 1.0);
            out[i] = match self.kinds[i] {
                VarKind::Continuous => x.clamp(lower[i], upper[i]),
                _ => x.round().clamp(lower[i], upper[i]),
            };
        }
    }

    /// Rounds the discrete coordinates of a unit-cube point in place (to the unit coordinates of
    /// the nearest allowed value); continuous ones are clamped to `[0, 1]`.
    pub fn round_unit(&self, u: &mut [f64]) {
        let (lower, upper) = (self.lower(), self.upper());
        for (i, ui) in u.iter_mut().enumerate() {
            *ui = ui.clamp(0.0, 1.0);
            if self.kinds[i] != VarKind::Continuous {
                let w = upper[i] - lower[i];
                *ui = ((lower[i] + w * *ui).round() - lower[i]) / w;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rounds() {
        let s = Space::new(vec![-2.0, 1.0, 0.0], vec![2.0, 5.0, 2.0], vec![VarKind::Continuous, VarKind::Integer, VarKind::Categorical])
            .unwrap();
        let mut u = [0.0; 3];
        s.to_unit(&[1.0, 3.0, 2.0], &mut u).unwrap();
        assert_eq!(u, [0.75, 0.5, 1.0]);
        let mut x = [0.0; 3];
        s.from_unit(&[0.1, 0.37, 0.2], &mut x);
        assert_eq!(x, [-1.6, 2.0, 0.0]);
        let mut v = [0.1, 0.37, 0.3];
        s.round_unit(&mut v);
        assert_eq!(v, [0.1, 0.25, 0.5]);
        assert!(s.to_unit(&[3.0, 3.0, 1.0], &mut u).unwrap_err().to_string().contains("coordinate 0 = 3"));
        assert!(s.to_unit(&[f64::NAN, 3.0, 1.0], &mut u).is_err());
    }

    #[test]
    fn rejects_bad_boxes() {
        assert!(Space::continuous(vec![], vec![]).is_err());
        assert!(Space::continuous(vec![1.0], vec![1.0]).is_err());
        assert!(Space::continuous(vec![0.0], vec![f64::INFINITY]).is_err());
        let e = Space::continuous(vec![1.0], vec![1.0 + 1e-12]).unwrap_err().to_string();
        assert!(e.contains("width 1") && e.contains("fix the coordinate"), "{e}");
        assert!(Space::new(vec![0.5], vec![3.0], vec![VarKind::Integer]).is_err());
        assert!(Space::continuous(vec![1.0], vec![1.0 + 1e-6]).is_ok());
    }
}
