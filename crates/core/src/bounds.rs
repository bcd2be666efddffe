//! Box constraints `l <= x <= u` and how an unconstrained optimizer is made to respect them.

use serde::{Deserialize, Serialize};

use crate::{CoreError, GfRng};
use rand::RngExt;

/// A box `[lower_i, upper_i]` in every coordinate; finite, with `lower_i < upper_i`. Deserialization
/// goes through [`Bounds::new`], so a box read from a file holds the same invariants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBounds")]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

#[derive(Deserialize)]
struct RawBounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl TryFrom<RawBounds> for Bounds {
    type Error = CoreError;
    fn try_from(r: RawBounds) -> Result<Self, CoreError> {
        Bounds::new(r.lower, r.upper)
    }
}

impl Bounds {
    /// Checked constructor: same lengths, non-empty, finite, `lower < upper` everywhere.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, CoreError> {
        if lower.is_empty() {
            return Err(CoreError::Empty("bounds"));
        }
        if lower.len() != upper.len() {
            return Err(CoreError::DimensionMismatch { what: "upper bound length", expected: lower.len(), got: upper.len() });
        }
        for (i, (l, u)) in lower.iter().zip(&upper).enumerate() {
            if !l.is_finite() || !u.is_finite() || l >= u {
                return Err(CoreError::invalid("bounds", format!("[{l}, {u}] in coordinate {i}"), "finite with lower < upper"));
            }
        }
        Ok(Bounds { lower, upper })
    }

    /// The box `[lo, hi]^d`.
    pub fn uniform(d: usize, lo: f64, hi: f64) -> Result<Self, CoreError> {
        // Callers check their dimension against the memory budget once (e.g. when a problem is
        // built); this only keeps `vec!` from panicking on a size no machine has.
        if d > (isize::MAX as usize) / 8 {
            return Err(CoreError::invalid("dimension", d, "at most 2^60"));
        }
        Bounds::new(vec![lo; d], vec![hi; d])
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.lower.len()
    }

    /// Lower corner.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// Upper corner.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// Whether `x` lies in the closed box.
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.dim() && x.iter().zip(&self.lower).zip(&self.upper).all(|((v, l), u)| *v >= *l && *v <= *u)
    }

    /// Writes the repaired point into `out` (same length as `x`).
    pub fn repair_into(&self, method: BoundaryRepair, x: &[f64], out: &mut [f64]) {
        for (((o, &v), &l), &u) in out.iter_mut().zip(x).zip(&self.lower).zip(&self.upper) {
            *o = match method {
                BoundaryRepair::Clip => v.clamp(l, u),
                BoundaryRepair::Reflect => reflect(v, l, u),
                BoundaryRepair::Transform => lin_quad(v, l, u),
            };
        }
    }

    /// Squared Euclidean distance from `x` to the box, `sum_i dist(x_i, [l_i, u_i])^2`.
    pub fn violation_sq(&self, x: &[f64]) -> f64 {
        x.iter()
            .zip(&self.lower)
            .zip(&self.upper)
            .map(|((&v, &l), &u)| {
                let e = if v < l {
                    l - v
                } else if v > u {
                    v - u
                } else {
                    0.0
                };
                e * e
            })
            .sum()
    }

    /// The factor in (0, 1] that brings per-coordinate standard deviations `stds` to at most a
    /// third of the box's sides (pycma's `maxstd_boundrange = 1/3`), as one factor for all of them
    /// (1 when they are within already). Under the periodic [`BoundaryRepair::Transform`] a wider
    /// distribution straddles several periods, where the values it sees say little about the box
    /// (INGO's spread then grows without end).
    pub fn spread_factor(&self, stds: &[f64]) -> f64 {
        stds.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .map(|(&s, (&lo, &hi))| if s > 0.0 { (hi - lo) / (3.0 * s) } else { f64::INFINITY })
            .fold(1.0, f64::min)
    }

    /// A point drawn uniformly from the box.
    pub fn sample_uniform(&self, rng: &mut GfRng) -> Vec<f64> {
        self.lower.iter().zip(&self.upper).map(|(&l, &u)| l + (u - l) * rng.random::<f64>()).collect()
    }

    /// Center of the box.
    pub fn center(&self) -> Vec<f64> {
        self.lower.iter().zip(&self.upper).map(|(l, u)| 0.5 * (l + u)).collect()
    }

    /// Largest side length.
    pub fn max_width(&self) -> f64 {
        self.lower.iter().zip(&self.upper).map(|(l, u)| u - l).fold(0.0, f64::max)
    }
}

/// Mirror `v` into `[l, u]`: reflection at the nearer bound, periodic with period `2(u-l)` for
/// points far outside, so the result is always inside and continuous in `v`.
fn reflect(v: f64, l: f64, u: f64) -> f64 {
    if (l..=u).contains(&v) {
        return v;
    }
    if !v.is_finite() {
        return v.clamp(l, u);
    }
    let w = u - l;
    let t = (v - l).rem_euclid(2.0 * w);
    if t <= w { l + t } else { u - (t - w) }
}

/// Width of the quadratic margin of [`lin_quad`] at bound `b` of an interval of width `w`:
/// `min(w / 2, max(1, |b|) / 20)` (pycma's `margin_width2`).
fn margin(b: f64, w: f64) -> f64 {
    (0.5 * w).min(0.05 * b.abs().max(1.0))
}

/// The linear-quadratic periodic transformation of pycma's `BoundTransform`
/// (`BoxConstraintsLinQuadTransformation`; Hansen, pycma documentation): with margins
/// `a_l = margin(l)`, `a_u = margin(u)` it is the identity on `[l + a_l, u - a_u]`, the parabola
/// `l + (v - l + a_l)^2 / (4 a_l)` on `[l - a_l, l + a_l]` (and its mirror image at `u`), reflected
/// beyond `l - a_l` and `u + a_u`, and periodic with period `2 (u - l + a_l + a_u)`. So it maps R
/// onto `[l, u]`, is continuously differentiable (no plateau outside the box, unlike the
/// projection) and bijective from `[l - a_l, u + a_u]` onto `[l, u]`.
fn lin_quad(v: f64, l: f64, u: f64) -> f64 {
    if !v.is_finite() {
        return v.clamp(l, u);
    }
    let w = u - l;
    let (al, au) = (margin(l, w), margin(u, w));
    let mut y = v;
    let (lo, hi) = (l - 2.0 * al - 0.5 * w, u + 2.0 * au + 0.5 * w);
    if y < lo || y > hi {
        // Shift by whole periods into [lo, lo + period).
        let period = 2.0 * (w + al + au);
        y -= period * ((y - lo) / period).floor();
    }
    if y > u + au {
        y -= 2.0 * (y - u - au);
    }
    if y < l - al {
        y += 2.0 * (l - al - y);
    }
    if y < l + al {
        y = l + (y - (l - al)).powi(2) / (4.0 * al);
    }
    if y > u - au {
        y = u - (y - (u + au)).powi(2) / (4.0 * au);
    }
    // Rounding in the shift can leave y an ulp outside; the box is a promise.
    y.clamp(l, u)
}

/// pycma's `BoundTransform` for one coordinate whose bounds may be infinite (`l < u`, either
/// side `-inf`/`+inf` for none): the linear-quadratic map of [`BoundaryRepair::Transform`] for a
/// finite box; with a lower bound only, the identity above `l + a_l`, the parabola
/// `l + (v - l + a_l)^2 / (4 a_l)` on `[l - a_l, l + a_l]` and the mirror image at `l - a_l` below
/// it, `a_l = max(1, |l|) / 20` (and its mirror image for an upper bound only); the identity with
/// none. Every finite `v` maps into `[l, u]`; NaN stays NaN.
pub fn transform_coordinate(v: f64, l: f64, u: f64) -> f64 {
    match (l.is_finite(), u.is_finite()) {
        (true, true) => lin_quad(v, l, u),
        (true, false) => lower_only(v, l),
        (false, true) => -lower_only(-v, -u),
        (false, false) => v,
    }
}

/// [`transform_coordinate`] with a lower bound `l` only.
fn lower_only(v: f64, l: f64) -> f64 {
    if v.is_nan() {
        return v;
    }
    if v.is_infinite() {
        return v.max(l);
    }
    let a = margin(l, f64::INFINITY);
    let mut y = v;
    if y < l - a {
        y = 2.0 * (l - a) - y;
    }
    if y < l + a {
        y = l + (y - (l - a)).powi(2) / (4.0 * a);
    }
    y.max(l)
}

/// How a point outside the box is mapped inside before it is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundaryRepair {
    /// Projection onto the box (coordinate-wise clamp). The value is constant along every outward
    /// direction outside the box, so an optimizer told `f(clip(x))` for its own `x` sees plateaus
    /// there: its distribution drifts outside and its samples pile up on the box's faces.
    Clip,
    /// Mirror reflection at the bounds.
    Reflect,
    /// pycma's `BoundTransform`: the smooth periodic map `lin_quad` onto the box (identity in
    /// its interior away from a 5% margin at each bound). No plateaus, no bias for an optimum
    /// inside the box; the default.
    Transform,
}

impl BoundaryRepair {
    /// Every method, as `(name, method)` with the names the CLI and Python accept.
    pub const NAMES: [(&'static str, BoundaryRepair); 3] =
        [("transform", BoundaryRepair::Transform), ("clip", BoundaryRepair::Clip), ("reflect", BoundaryRepair::Reflect)];
}

/// How the driver enforces a box on an unconstrained optimizer.
///
/// In both modes the objective is evaluated only at feasible (repaired) points, the optimizer is
/// told the values of the points it proposed (pycma's non-Lamarckian handling, which keeps the
/// distribution update consistent), and the reported best `x` is the feasible point that was
/// evaluated.
///
/// A document may name it ([`BoundsHandling::from_name`]: `"transform"`, `"penalty"`, ...) or
/// give it in the form it is written in (`{"Repair": "Clip"}`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "HandlingDoc")]
pub enum BoundsHandling {
    /// Value `f(repair(x))`.
    Repair(BoundaryRepair),
    /// Value `f(repair(x)) + weight * ||x - repair(x)||^2`: steers the search back into the box.
    Penalty {
        /// Repair used for the evaluation point.
        repair: BoundaryRepair,
        /// Weight of the squared distance to the box (`> 0`).
        weight: f64,
    },
}

/// A [`BoundsHandling`] as a document gives it: its name, or the enum's written form.
#[derive(Deserialize)]
#[serde(untagged)]
enum HandlingDoc {
    /// `"transform"`, `"clip"`, `"reflect"`, `"penalty"`.
    Name(String),
    /// The form [`BoundsHandling`] is written in.
    Written(WrittenHandling),
}

/// [`BoundsHandling`]'s written form (its serialization).
#[derive(Deserialize)]
enum WrittenHandling {
    Repair(BoundaryRepair),
    Penalty { repair: BoundaryRepair, weight: f64 },
}

impl TryFrom<HandlingDoc> for BoundsHandling {
    type Error = CoreError;
    fn try_from(doc: HandlingDoc) -> Result<Self, CoreError> {
        match doc {
            HandlingDoc::Name(name) => BoundsHandling::from_name(&name),
            HandlingDoc::Written(WrittenHandling::Repair(r)) => Ok(BoundsHandling::Repair(r)),
            HandlingDoc::Written(WrittenHandling::Penalty { repair, weight }) => Ok(BoundsHandling::Penalty { repair, weight }),
        }
    }
}

impl BoundsHandling {
    /// Weight of the squared distance to the box under the named `penalty` handling.
    pub const DEFAULT_PENALTY_WEIGHT: f64 = 1e3;

    /// The handling named `name`: a [`BoundaryRepair::NAMES`] entry, or `penalty` (clip plus
    /// [`Self::DEFAULT_PENALTY_WEIGHT`] times the squared distance to the box).
    pub fn from_name(name: &str) -> Result<Self, CoreError> {
        if name == "penalty" {
            return Ok(BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: Self::DEFAULT_PENALTY_WEIGHT });
        }
        BoundaryRepair::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, r)| BoundsHandling::Repair(r))
            .ok_or_else(|| CoreError::invalid("bounds_handling", format!("{name:?}"), "one of transform, clip, reflect, penalty"))
    }

    /// Checks the penalty weight.
    pub fn validate(&self) -> Result<(), CoreError> {
        if let BoundsHandling::Penalty { weight, .. } = self
            && !(weight.is_finite() && *weight > 0.0)
        {
            return Err(CoreError::invalid("penalty weight", weight, "finite and > 0"));
        }
        Ok(())
    }

    /// Repair method used for the evaluation point.
    pub fn repair(&self) -> BoundaryRepair {
        match self {
            BoundsHandling::Repair(r) | BoundsHandling::Penalty { repair: r, .. } => *r,
        }
    }

    /// Penalty added to `f(repair(x))`.
    pub fn penalty(&self, bounds: &Bounds, x: &[f64]) -> f64 {
        match self {
            BoundsHandling::Repair(_) => 0.0,
            BoundsHandling::Penalty { weight, .. } => weight * bounds.violation_sq(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handling reads from its name or its written form, and writes in the written form.
    #[test]
    fn handling_reads_by_name() {
        let by_name: BoundsHandling = serde_json::from_str(r#""penalty""#).unwrap();
        assert_eq!(by_name, BoundsHandling::from_name("penalty").unwrap());
        for h in [by_name, BoundsHandling::Repair(BoundaryRepair::Transform)] {
            assert_eq!(serde_json::from_str::<BoundsHandling>(&serde_json::to_string(&h).unwrap()).unwrap(), h);
        }
        assert_eq!(serde_json::from_str::<BoundsHandling>(r#"{"Repair": "Clip"}"#).unwrap(), BoundsHandling::Repair(BoundaryRepair::Clip));
        let e = serde_json::from_str::<BoundsHandling>(r#""squash""#).unwrap_err().to_string();
        assert!(e.contains("bounds_handling") && e.contains("transform, clip"), "{e}");
    }

    #[test]
    fn checked_constructor() {
        assert!(Bounds::new(vec![0.0], vec![0.0]).is_err());
        assert!(Bounds::new(vec![0.0, 1.0], vec![1.0]).is_err());
        assert!(Bounds::new(vec![f64::NAN], vec![1.0]).is_err());
        assert!(Bounds::new(vec![], vec![]).is_err());
        assert!(Bounds::uniform(3, -2.0, 2.0).is_ok());
    }

    #[test]
    fn repairs_land_inside() {
        let b = Bounds::uniform(1, -1.0, 2.0).unwrap();
        let mut o = [0.0];
        for (v, clip, refl) in [(3.0, 2.0, 1.0), (-1.5, -1.0, -0.5), (0.5, 0.5, 0.5), (8.5, 2.0, 1.5), (-7.0, -1.0, -1.0)] {
            b.repair_into(BoundaryRepair::Clip, &[v], &mut o);
            assert_eq!(o[0], clip);
            b.repair_into(BoundaryRepair::Reflect, &[v], &mut o);
            assert!((o[0] - refl).abs() < 1e-12, "reflect({v}) = {}", o[0]);
        }
        assert_eq!(b.violation_sq(&[3.5]), 2.25);
        assert_eq!(b.violation_sq(&[0.0]), 0.0);
    }

    /// pycma's documented values of its linear-quadratic transformation (default margins,
    /// bounds [1, 2] then [1, 11]).
    #[test]
    fn transform_matches_pycma_examples() {
        let b = Bounds::new(vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0], vec![2.0, 11.0, 11.0, 11.0, 11.0, 11.0]).unwrap();
        let mut o = [0.0; 6];
        b.repair_into(BoundaryRepair::Transform, &[1.52, -2.2, -0.2, 2.0, 4.0, 10.4], &mut o);
        for (got, want) in o.iter().zip([1.52, 4.1, 2.1, 2.0, 4.0, 10.4]) {
            assert!((got - want).abs() < 1e-12, "{o:?}");
        }
        // The ends of the invertible domain map onto the bounds.
        assert_eq!(lin_quad(1.0 - 0.05, 1.0, 11.0), 1.0);
        assert!((lin_quad(11.0 + 0.55, 1.0, 11.0) - 11.0).abs() < 1e-15);
    }

    /// One-sided bounds: the identity beyond the margin, into the half-line everywhere, continuous
    /// at the margin's ends, and the lower and upper cases mirror images of each other.
    #[test]
    fn one_sided_transform_stays_on_its_side() {
        for l in [-3.0, 0.0, 40.0] {
            let a = 0.05 * f64::max(1.0, f64::abs(l));
            assert_eq!(transform_coordinate(l + 2.0 * a, l, f64::INFINITY), l + 2.0 * a);
            assert_eq!(transform_coordinate(l - a, l, f64::INFINITY), l);
            let eps = 1e-9;
            let at = |v: f64| transform_coordinate(v, l, f64::INFINITY);
            assert!((at(l + a + eps) - at(l + a - eps)).abs() < 1e-8, "continuous at l + a");
            for k in -200..200 {
                let v = l + 0.37 * k as f64;
                let y = at(v);
                assert!(y >= l, "{v} -> {y} below {l}");
                assert_eq!(transform_coordinate(-v, f64::NEG_INFINITY, -l), -y);
            }
        }
        assert_eq!(transform_coordinate(7.5, f64::NEG_INFINITY, f64::INFINITY), 7.5);
        assert_eq!(transform_coordinate(f64::NEG_INFINITY, 1.0, f64::INFINITY), 1.0);
        assert!(transform_coordinate(f64::NAN, 1.0, f64::INFINITY).is_nan());
        assert_eq!(transform_coordinate(1.52, 1.0, 2.0), lin_quad(1.52, 1.0, 2.0));
    }

    /// Inside the box for every input, periodic, continuous with a continuous derivative, and
    /// strictly increasing on the invertible domain `[l - a_l, u + a_u]`.
    #[test]
    fn transform_is_a_smooth_periodic_bijection() {
        for (l, u) in [(-5.0, 5.0), (0.0, 1.0), (1e3, 1e3 + 0.01), (-1.0, 2.0)] {
            let w = u - l;
            let (al, au) = (margin(l, w), margin(u, w));
            let period = 2.0 * (w + al + au);
            let (a, b) = (l - al, u + au);
            let n = 20_000;
            let mut prev = lin_quad(a, l, u);
            for k in 1..=n {
                let v = a + (b - a) * k as f64 / n as f64;
                let y = lin_quad(v, l, u);
                assert!(y > prev || (k == n && (y - prev).abs() < 1e-9 * w), "not increasing at {v} on [{l}, {u}]");
                prev = y;
            }
            let h = 1e-7 * w;
            for k in 0..2000 {
                let v = l - 3.0 * w + 7.0 * w * k as f64 / 2000.0;
                let y = lin_quad(v, l, u);
                assert!((l..=u).contains(&y));
                assert!((lin_quad(v + period, l, u) - y).abs() < 1e-9 * w.max(1.0), "not periodic at {v}");
                // |f'| <= 1 everywhere and f' is continuous: the difference quotients on both
                // sides agree.
                let (dl, dr) = ((y - lin_quad(v - h, l, u)) / h, (lin_quad(v + h, l, u) - y) / h);
                assert!(dl.abs() <= 1.0 + 1e-3 && (dl - dr).abs() < 1e-3, "derivative jumps at {v}: {dl} vs {dr}");
            }
        }
        assert_eq!(lin_quad(1e300, -1.0, 1.0).clamp(-1.0, 1.0), lin_quad(1e300, -1.0, 1.0));
    }

    #[test]
    fn spread_factor_caps_at_a_third_of_each_side() {
        let b = Bounds::new(vec![0.0, 0.0], vec![3.0, 30.0]).unwrap();
        assert_eq!(b.spread_factor(&[0.5, 5.0]), 1.0);
        assert!((b.spread_factor(&[2.0, 5.0]) - 0.5).abs() < 1e-15);
        assert!((b.spread_factor(&[0.5, 40.0]) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn penalty_weight_validated() {
        assert!(BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: -1.0 }.validate().is_err());
        assert!(BoundsHandling::Penalty { repair: BoundaryRepair::Clip, weight: 1e3 }.validate().is_ok());
    }
}
