//! # gradfree-problems
//!
//! Every test function of the source documents, each with its exact formula, search domain,
//! known minimizer and minimum:
//!
//! - thesis Table 3.1 ([`analytic`]): Ellipsoid, Discus (with `x_1^2`, erratum 40 of NOTES (f)),
//!   l1-Ellipsoid, l1/2-Ellipsoid, Levy, Rastrigin10;
//! - thesis Table 4.4: Rosenbrock, Nesterov, Different-Powers, Dixon-Price, Ackley, Levy;
//! - MiNES Table 1 / sec. 6.1: ssphere, diffpow, and the quadratic with a prescribed condition
//!   number ([`Quadratic`]);
//! - thesis sec. 3.7.3: binary reconstruction ([`BinaryReconstruction`]); for the discrete INGO
//!   also ([`discrete`]) its categorical analogue, OneMax, LeadingOnes and MaxCut;
//! - MiNES sec. 6.2: l2-regularized logistic regression on a data matrix ([`LogisticRegression`]);
//! - smoke tests: Sphere, Rastrigin, Griewank, and a sphere that fails (NaN) on half the space.
//!
//! [`Rotated`] and [`Shifted`] wrap any problem; [`registry`] builds problems by name.

pub mod analytic;
pub mod binary;
pub mod discrete;
pub mod error;
pub mod integrands;
pub mod logistic;
pub mod quadratic;
pub mod registry;
pub mod robot_push;
pub mod transform;

pub use analytic::Analytic;
pub use binary::BinaryReconstruction;
pub use discrete::{CategoricalReconstruction, LeadingOnes, MaxCut, OneMax};
pub use error::ProblemError;
pub use logistic::LogisticRegression;
pub use quadratic::Quadratic;
pub use registry::{ProblemSpec, build, fixed_dimension, list};
pub use transform::{Rotated, Shifted, random_orthogonal};

use gradfree_core::{Bounds, Objective};

/// A benchmark problem: an [`Objective`] with its documentation and known solution.
pub trait Problem: Objective + Send + Sync {
    /// Registry name, e.g. `"ellipsoid"`.
    fn name(&self) -> &str;
    /// Dimension `d`.
    fn dimension(&self) -> usize;
    /// The formula, in plain text.
    fn formula(&self) -> &str;
    /// Where the formula comes from, e.g. `"thesis Table 3.1"`.
    fn source(&self) -> &str;
    /// The search domain the source states, if any (`None`: unconstrained).
    fn domain(&self) -> Option<Bounds>;
    /// A global minimizer, if known in closed form.
    fn minimizer(&self) -> Option<Vec<f64>>;
    /// The global minimum, if known.
    fn minimum(&self) -> Option<f64>;
    /// For discrete problems, the number of categories `K` of every variable (`Some(2)`: binary,
    /// read as `x_i > 0.5`; `Some(K)`: the nearest index in `0..K`); `None` for continuous ones.
    fn categories(&self) -> Option<usize> {
        None
    }
    /// The point of the problem's own domain that `x` is read as ([`Problem::categories`]):
    /// for a binary problem each `x_i` as 1 if `x_i > 0.5` else 0, for `K` categories the nearest
    /// index in `0..K`, for a continuous problem `x` itself. A continuous method run on a discrete
    /// problem (a relaxation) reports its best point read this way, so that the answer lies in
    /// the problem's domain and evaluates to the best value found.
    fn decode(&self, x: &[f64]) -> Vec<f64> {
        match self.categories() {
            None => x.to_vec(),
            Some(2) => x.iter().map(|&v| if v > 0.5 { 1.0 } else { 0.0 }).collect(),
            Some(k) => x.iter().map(|&v| discrete::category(v, k) as f64).collect(),
        }
    }
    /// The box from which initial means are drawn uniformly: the domain when there is one,
    /// otherwise `[0, 1]^d` as in the thesis sec. 3.7.1 protocol (`mu_1 ~ Uni[0, 1]`).
    fn init_region(&self) -> Bounds {
        self.domain().unwrap_or_else(|| Bounds::uniform(self.dimension(), 0.0, 1.0).expect("d >= 1"))
    }
}
