//! The cusp guard of INGO's two-point step-size adaptation: a test of the rule's premise.
//!
//! A success rule shrinks the overall scale when shorter steps rank better. That is right when
//! the objective behaves near the mean like a power `|x|^a` with `a >= 1` (a norm, a quadratic),
//! where the values of a generation spread in proportion to `scale^a`. Where it has cusps
//! (`a < 1`, e.g. the thesis' l1/2-Ellipsoid `sum_i c_i |x_i|^(1/2)`, Table 3.1) a shorter step
//! always ranks better along the heavy coordinates, and the rule shrinks the scale isotropically
//! until the light coordinates freeze (user guide, docs/results/optimizers.md, "Why no rule keeps the l1/2-Ellipsoid").
//!
//! The guard estimates that exponent from the run itself: with `ln` of the scale and of the
//! generation's value spread (median minus best) smoothed over about ten generations, each time
//! the smoothed scale has fallen by a factor 10 since the last check it computes
//! `a = delta ln(spread) / delta ln(scale)` over that stretch. If `a` is below [`EXPONENT`] the
//! premise has failed and the guard trips: the algorithm undoes the rule's net shrinking of the
//! scale (at most back to where the guard began, [`CuspGuard::headroom`]) and goes on without the
//! rule, with the shape the covariance has learned (the thesis
//! update alone, whose slow, value-weighted shrinking solves the l1/2-Ellipsoid). Generations whose spread is zero, or below `1e-11` of the values (rounding, not
//! the objective's shape), are not used.

use serde::{Deserialize, Serialize};

/// The smallest exponent `a` of `spread ~ scale^a` the rule accepts: between the cusps' 1/2 and
/// a norm's 1 (the sharp ridge, the l1-Ellipsoid), with room for the estimate's noise.
pub const EXPONENT: f64 = 0.6;
/// The factor the smoothed scale must fall by between two checks.
const DECADE: f64 = std::f64::consts::LN_10;
/// Smoothing of the logarithms: `e <- 0.9 e + 0.1 x` (about ten generations).
const KEEP: f64 = 0.9;
/// Generations observed before the first reference point.
const WARM_UP: u32 = 10;
/// Spreads below this fraction of the values' magnitude are rounding and are skipped.
const FLOOR: f64 = 1e-11;

/// The guard's state (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CuspGuard {
    /// Smoothed `ln scale` and `ln spread`.
    smooth: Option<(f64, f64)>,
    /// Generations used so far.
    used: u32,
    /// The smoothed pair at the last check.
    reference: Option<(f64, f64)>,
    /// The smoothed `ln scale` at the first reference.
    #[serde(default)]
    first: Option<f64>,
    /// The exponent found at the last check.
    pub last_exponent: Option<f64>,
}

impl CuspGuard {
    /// Takes one generation: the scale its samples were drawn with and their values (in any
    /// order; non-finite ones ignored; `scratch` is reused for sorting). Returns the exponent
    /// that tripped the guard, if it did.
    pub fn observe(&mut self, scale: f64, values: &[f64], scratch: &mut Vec<f64>) -> Option<f64> {
        scratch.clear();
        scratch.extend(values.iter().copied().filter(|v| v.is_finite()));
        if scratch.len() < 2 || !(scale > 0.0 && scale.is_finite()) {
            return None;
        }
        scratch.sort_unstable_by(f64::total_cmp);
        let (best, median) = (scratch[0], scratch[(scratch.len() - 1) / 2]);
        let spread = median - best;
        if !spread.is_finite() || spread <= FLOOR * best.abs().max(median.abs()) {
            return None;
        }
        let (ls, lsp) = (scale.ln(), spread.ln());
        let (es, esp) = match self.smooth {
            None => (ls, lsp),
            Some((es, esp)) => (KEEP * es + (1.0 - KEEP) * ls, KEEP * esp + (1.0 - KEEP) * lsp),
        };
        self.smooth = Some((es, esp));
        self.used = self.used.saturating_add(1);
        if self.used < WARM_UP {
            return None;
        }
        let Some((rs, rsp)) = self.reference else {
            self.reference = Some((es, esp));
            self.first = Some(es);
            return None;
        };
        if es <= rs - DECADE {
            let a = (esp - rsp) / (es - rs);
            self.last_exponent = Some(a);
            self.reference = Some((es, esp));
            return (a < EXPONENT).then_some(a);
        }
        if es >= rs + DECADE {
            self.reference = Some((es, esp));
        }
        None
    }

    /// How far, in `ln`, the smoothed scale has fallen since the guard's first reference (0 if
    /// it has not): the most a tripped guard may undo, so that undoing a rule's shrinking never
    /// lifts the scale above where the guard began.
    pub fn headroom(&self) -> f64 {
        match (self.first, self.smooth) {
            (Some(first), Some((es, _))) => (first - es).max(0.0),
            _ => 0.0,
        }
    }
}
