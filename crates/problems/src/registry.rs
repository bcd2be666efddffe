//! Problems by name, for the CLI, the Python package and the experiments.

use gradfree_core::derive_seed;

use crate::logistic::MINES_BETA;
use crate::quadratic::MINES_CONDITION;
use crate::{
    Analytic, BinaryReconstruction, CategoricalReconstruction, LeadingOnes, LogisticRegression, MaxCut, OneMax, Problem, ProblemError,
    Quadratic, Rotated, Shifted,
};

/// A registry entry: name, summary and source.
pub type ProblemSpec = gradfree_core::registry::Info;

const SPECS: &[ProblemSpec] = &[
    ProblemSpec { name: "sphere", source: "smoke test", summary: "sum x_i^2; min 0 at 0" },
    ProblemSpec { name: "ellipsoid", source: "thesis Table 3.1", summary: "sum 10^(6(i-1)/(d-1)) x_i^2; min 0 at 0" },
    ProblemSpec {
        name: "discus",
        source: "thesis Table 3.1",
        summary: "10^6 x_1^2 + sum_{i>=2} x_i^2 (the thesis prints x_1, unbounded below); min 0 at 0",
    },
    ProblemSpec { name: "l1-ellipsoid", source: "thesis Table 3.1", summary: "sum 10^(6(i-1)/(d-1)) |x_i|; min 0 at 0" },
    ProblemSpec { name: "lhalf-ellipsoid", source: "thesis Table 3.1", summary: "sum 10^(6(i-1)/(d-1)) |x_i|^(1/2); min 0 at 0" },
    ProblemSpec { name: "levy", source: "thesis Tables 3.1, 4.4", summary: "Levy, domain [-10,10]^d; min 0 at 1" },
    ProblemSpec { name: "rastrigin10", source: "thesis Table 3.1", summary: "Rastrigin with scaling 10^((i-1)/(d-1)); min 0 at 0" },
    ProblemSpec { name: "rosenbrock", source: "thesis Table 4.4", summary: "Rosenbrock, domain [-2,2]^d, d >= 2; min 0 at 1" },
    ProblemSpec { name: "nesterov", source: "thesis Table 4.4", summary: "nonsmooth Chebyshev-Rosenbrock, domain [-2,2]^d; min 0 at 1" },
    ProblemSpec {
        name: "different-powers",
        source: "thesis Table 4.4",
        summary: "sum |x_i|^(2+10(i-1)/(d-1)), domain [-2,2]^d; min 0 at 0",
    },
    ProblemSpec { name: "dixon-price", source: "thesis Table 4.4", summary: "Dixon-Price, domain [-2,2]^d; min 0 at 2^(-(2^i-2)/2^i)" },
    ProblemSpec { name: "ackley", source: "thesis Table 4.4", summary: "Ackley, domain [-2,2]^d; min 0 at 0" },
    ProblemSpec { name: "ssphere", source: "MiNES Table 1", summary: "sqrt(sum x_i^2); min 0 at 0" },
    ProblemSpec { name: "diffpow", source: "MiNES Table 1", summary: "different powers, unconstrained; min 0 at 0" },
    ProblemSpec { name: "quadratic", source: "MiNES sec. 6.1", summary: "1/2 x^T A x, cond(A) = 2.306e3, A from the seed; min 0 at 0" },
    ProblemSpec {
        name: "logistic",
        source: "MiNES sec. 6.2",
        summary: "l2-logistic regression (beta 1e-4) on synthetic data n = max(100, 10d) from the seed",
    },
    ProblemSpec {
        name: "binary-reconstruction",
        source: "thesis sec. 3.7.3",
        summary: "||sign(x-0.5) - w||^2 - ||sign(w) - w||^2 on {0,1}^d; min 0",
    },
    ProblemSpec {
        name: "categorical-reconstruction",
        source: "K = 4 analogue of thesis sec. 3.7.3",
        summary: "sum (a_{x_i} - w_i)^2 - min, K = 4 levels in [-1,1], x in {0..3}^d; min 0",
    },
    ProblemSpec { name: "onemax", source: "classic sanity check", summary: "d - sum x_i on {0,1}^d; min 0 at all ones" },
    ProblemSpec { name: "leadingones", source: "classic sanity check", summary: "d - (leading ones) on {0,1}^d; min 0 at all ones" },
    ProblemSpec {
        name: "maxcut",
        source: "classic combinatorial benchmark",
        summary: "minus the cut of G(d, 10/(d-1)) from the seed on {0,1}^d, d >= 2",
    },
    ProblemSpec { name: "rastrigin", source: "smoke test", summary: "Rastrigin, domain [-5.12,5.12]^d; min 0 at 0" },
    ProblemSpec { name: "griewank", source: "smoke test", summary: "Griewank, domain [-600,600]^d; min 0 at 0" },
    ProblemSpec {
        name: "robot-push",
        source: "Wang & Jegelka 2017; thesis sec. 4.7.4",
        summary: "4-d robot pushing (own model of the Box2D scene): distance from the pushed object to a seeded goal; d = 4 only",
    },
    ProblemSpec { name: "failing-sphere", source: "smoke test", summary: "sphere returning NaN where x_1 < 0 (tests the NaN policy)" },
];

/// Every registered problem.
pub fn list() -> &'static [ProblemSpec] {
    SPECS
}

/// The only dimension problem `name` has, for problems of a fixed dimension (`robot-push`: 4).
pub fn fixed_dimension(name: &str) -> Option<usize> {
    (name == "robot-push").then_some(4)
}

/// Builds problem `name` in dimension `d`. Problems with random data (quadratic, logistic,
/// binary-reconstruction) draw it from `seed`; closed-form ones ignore it.
pub fn build(name: &str, d: usize, seed: u64) -> Result<Box<dyn Problem>, ProblemError> {
    if d == 0 {
        return Err(ProblemError::Dimension { problem: name.to_string(), dim: 0, expected: ">= 1".into() });
    }
    use gradfree_core::memory::product;
    let (d128, m) = (d as u128, (10 * d as u128).max(100));
    let elements = match name {
        "quadratic" => product(&[4, d128, d128]),
        "logistic" => product(&[m, d128]).saturating_add(4 * m + 16 * d128),
        _ => 16 * d128,
    };
    gradfree_core::memory::check_elements(&format!("problem `{name}` with dimension {d}"), elements)?;
    if let Some(p) = Analytic::by_name(name, d) {
        return Ok(Box::new(p?));
    }
    Ok(match name {
        "quadratic" => Box::new(Quadratic::new(d, MINES_CONDITION, seed)?),
        "logistic" => Box::new(LogisticRegression::synthetic((10 * d).max(100), d, MINES_BETA, seed)?),
        "binary-reconstruction" => Box::new(BinaryReconstruction::new(d, seed)?),
        "categorical-reconstruction" => Box::new(CategoricalReconstruction::new(d, 4, seed)?),
        "onemax" => Box::new(OneMax::new(d)?),
        "leadingones" => Box::new(LeadingOnes::new(d)?),
        "maxcut" => Box::new(MaxCut::new(d, seed)?),
        "robot-push" if d == 4 => Box::new(crate::robot_push::RobotPush::new(seed)),
        "robot-push" => return Err(ProblemError::Dimension { problem: name.to_string(), dim: d, expected: "4".into() }),
        _ => {
            return Err(ProblemError::Unknown { name: name.to_string(), known: gradfree_core::registry::names(SPECS) });
        }
    })
}

/// [`build`], then optionally rotate (random orthogonal about the minimizer) and shift (uniform in
/// `[-shift, shift]^d`); rotation and shift draw from sub-streams of `seed`.
pub fn build_with(name: &str, d: usize, seed: u64, rotate: bool, shift: Option<f64>) -> Result<Box<dyn Problem>, ProblemError> {
    let mut p = build(name, d, seed)?;
    if (rotate || shift.is_some()) && p.categories().is_some() {
        // A rotated or shifted discrete problem would read its bits or categories off the moved
        // point, which no longer lies in its domain: not the problem any more.
        return Err(ProblemError::Invalid {
            name: if rotate { "rotate" } else { "shift" },
            message: format!("`{name}` is a discrete problem: its variables cannot be rotated or shifted"),
        });
    }
    if rotate {
        gradfree_core::memory::check_elements(
            &format!("a rotation of dimension {d}"),
            gradfree_core::memory::product(&[4, d as u128, d as u128]),
        )?;
        p = Box::new(Rotated::new(p, derive_seed(seed, 0x0207)));
    }
    if let Some(r) = shift {
        p = Box::new(Shifted::random(p, r, derive_seed(seed, 0x5417))?);
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every problem: f(x*) = f*, f* is a lower bound on random points, x* in the domain.
    #[test]
    fn every_problem_attains_its_minimum() {
        for spec in list() {
            let dims: Vec<usize> = fixed_dimension(spec.name).map_or(vec![2, 7, 100], |d| vec![d]);
            for d in dims {
                let p = build(spec.name, d, 4).unwrap();
                assert_eq!(p.dimension(), d);
                assert_eq!(p.name(), spec.name);
                let region = p.init_region();
                let mut rng = gradfree_core::rng_from_seed(d as u64);
                if let (Some(x), Some(fstar)) = (p.minimizer(), p.minimum()) {
                    let fx = p.eval(&x);
                    assert!((fx - fstar).abs() <= 1e-12, "{} d={d}: f(x*) = {fx}", spec.name);
                    if let Some(dom) = p.domain() {
                        assert!(dom.contains(&x), "{}: minimizer outside domain", spec.name);
                    }
                    for _ in 0..200 {
                        let y = region.sample_uniform(&mut rng);
                        let fy = p.eval(&y);
                        if spec.name == "failing-sphere" && y[0] < 0.0 {
                            continue;
                        }
                        assert!(fy >= fstar - 1e-12, "{} d={d}: f(y) = {fy} < f*", spec.name);
                    }
                } else {
                    assert!(["logistic", "maxcut", "robot-push"].contains(&spec.name), "{}", spec.name);
                }
            }
        }
    }

    #[test]
    fn errors_are_clear() {
        let e = build("nope", 3, 0).err().unwrap().to_string();
        assert!(e.contains("unknown problem `nope`") && e.contains("ellipsoid"), "{e}");
        let e = build("sphere", 0, 0).err().unwrap().to_string();
        assert!(e.contains("invalid dimension 0"), "{e}");
        assert!(build_with("sphere", 3, 0, false, Some(-1.0)).is_err());
    }

    #[test]
    fn rotated_and_shifted_keep_their_minimum() {
        for name in ["ellipsoid", "rosenbrock", "levy", "quadratic"] {
            let p = build_with(name, 6, 3, true, Some(2.0)).unwrap();
            let x = p.minimizer().unwrap();
            assert!(p.eval(&x).abs() < 1e-12, "{name}");
        }
    }

    #[test]
    fn seeded_problems_are_reproducible() {
        let a = build("quadratic", 5, 9).unwrap();
        let b = build("quadratic", 5, 9).unwrap();
        let c = build("quadratic", 5, 10).unwrap();
        let x = [0.1, 0.2, 0.3, 0.4, 0.5];
        assert_eq!(a.eval(&x), b.eval(&x));
        assert_ne!(a.eval(&x), c.eval(&x));
    }
}
