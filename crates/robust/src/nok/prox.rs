//! The proximal activations of thesis Table 7.1: each regularizer `phi_lambda` and its proximal
//! operator `h(z) = argmin_x 1/2 (x - z)^2 + phi_lambda(x)`, the activation of the neural
//! optimization kernel's layers (7.3, 7.9). The table is garbled in the thesis; this follows the
//! reconstruction of its errata: capped-l1's missing candidate is `x1 = sign(z) max(|z|, gamma)`
//! (the minimizer over `|x| >= gamma`), SCAD's integrand is in the integration variable, and
//! MCP0's tie at `|z| = sqrt(lambda)` may take any `sign(z) beta sqrt(lambda)`, `beta` in
//! `[0, 1]` (we take `beta = 1`, continuous from above).

use serde::{Deserialize, Serialize};

use crate::error::{Result, RobustError};

/// A regularizer of Table 7.1 with its proximal operator.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Activation {
    /// `lambda ||x||_0` (Donoho & Johnstone): hard threshold at `sqrt(2 lambda)`.
    L0 {
        /// `lambda > 0`.
        lambda: f64,
    },
    /// `lambda |x|` (Donoho 1995): soft threshold at `lambda`.
    L1 {
        /// `lambda > 0`.
        lambda: f64,
    },
    /// The minimax concave penalty (Zhang 2010), `lambda int_0^|x| max(0, 1 - t/(gamma lambda)) dt`.
    Mcp {
        /// `lambda > 0`.
        lambda: f64,
        /// `gamma > 1`.
        gamma: f64,
    },
    /// Capped l1 (Zhang 2010), `lambda min(|x|, gamma)`.
    CappedL1 {
        /// `lambda > 0`.
        lambda: f64,
        /// `gamma > 0`.
        gamma: f64,
    },
    /// SCAD (Fan & Li 2001), `lambda int_0^|x| min(1, max(0, gamma lambda - t) / ((gamma - 1) lambda)) dt`.
    Scad {
        /// `lambda > 0`.
        lambda: f64,
        /// `gamma > 2`.
        gamma: f64,
    },
    /// MCP0 (Table 7.1's last row), `1/2 (lambda - max(sqrt(lambda) - |x|, 0)^2)`.
    Mcp0 {
        /// `lambda > 0`.
        lambda: f64,
    },
    /// ReLU, the proximal operator of the indicator of `x >= 0`.
    Relu,
}

/// The names [`Activation::from_name`] accepts.
pub const ACTIVATION_NAMES: &[&str] = &["l0", "l1", "mcp", "capped-l1", "scad", "mcp0", "relu"];

impl Activation {
    /// An activation by name with `lambda` and, where it has one, `gamma` (default 3.7 for SCAD,
    /// Fan & Li's choice, and 3 for MCP and 1 for capped l1).
    pub fn from_name(name: &str, lambda: f64, gamma: Option<f64>) -> Result<Self> {
        let a = match name {
            "l0" => Activation::L0 { lambda },
            "l1" => Activation::L1 { lambda },
            "mcp" => Activation::Mcp { lambda, gamma: gamma.unwrap_or(3.0) },
            "capped-l1" => Activation::CappedL1 { lambda, gamma: gamma.unwrap_or(1.0) },
            "scad" => Activation::Scad { lambda, gamma: gamma.unwrap_or(3.7) },
            "mcp0" => Activation::Mcp0 { lambda },
            "relu" => Activation::Relu,
            _ => return Err(RobustError::invalid("activation", name, format!("one of {}", ACTIVATION_NAMES.join(", ")))),
        };
        a.check()?;
        Ok(a)
    }

    /// `lambda` (`None` for ReLU).
    pub fn lambda(&self) -> Option<f64> {
        match *self {
            Activation::L0 { lambda } | Activation::L1 { lambda } | Activation::Mcp0 { lambda } => Some(lambda),
            Activation::Mcp { lambda, .. } | Activation::CappedL1 { lambda, .. } | Activation::Scad { lambda, .. } => Some(lambda),
            Activation::Relu => None,
        }
    }

    /// `gamma`, for the penalties that have one (MCP, capped l1, SCAD).
    pub fn gamma(&self) -> Option<f64> {
        match *self {
            Activation::Mcp { gamma, .. } | Activation::CappedL1 { gamma, .. } | Activation::Scad { gamma, .. } => Some(gamma),
            _ => None,
        }
    }

    /// Checks `lambda > 0` and each `gamma`'s range.
    pub fn check(&self) -> Result<()> {
        let lam = |l: f64| {
            if l.is_finite() && l > 0.0 { Ok(()) } else { Err(RobustError::invalid("lambda", l, "a finite number > 0")) }
        };
        let gam = |g: f64, lo: f64| {
            if g.is_finite() && g > lo { Ok(()) } else { Err(RobustError::invalid("gamma", g, format!("a finite number > {lo}"))) }
        };
        match *self {
            Activation::L0 { lambda } | Activation::L1 { lambda } | Activation::Mcp0 { lambda } => lam(lambda),
            Activation::Mcp { lambda, gamma } => lam(lambda).and(gam(gamma, 1.0)),
            Activation::CappedL1 { lambda, gamma } => lam(lambda).and(gam(gamma, 0.0)),
            Activation::Scad { lambda, gamma } => lam(lambda).and(gam(gamma, 2.0)),
            Activation::Relu => Ok(()),
        }
    }

    /// The regularizer `phi_lambda(x)` (infinite outside ReLU's domain `x >= 0`).
    pub fn phi(&self, x: f64) -> f64 {
        let a = x.abs();
        match *self {
            Activation::L0 { lambda } => {
                if x == 0.0 {
                    0.0
                } else {
                    lambda
                }
            }
            Activation::L1 { lambda } => lambda * a,
            Activation::Mcp { lambda, gamma } => {
                if a <= gamma * lambda {
                    lambda * a - a * a / (2.0 * gamma)
                } else {
                    gamma * lambda * lambda / 2.0
                }
            }
            Activation::CappedL1 { lambda, gamma } => lambda * a.min(gamma),
            Activation::Scad { lambda, gamma } => {
                if a <= lambda {
                    lambda * a
                } else if a <= gamma * lambda {
                    (2.0 * gamma * lambda * a - a * a - lambda * lambda) / (2.0 * (gamma - 1.0))
                } else {
                    lambda * lambda * (gamma + 1.0) / 2.0
                }
            }
            Activation::Mcp0 { lambda } => {
                let m = (lambda.sqrt() - a).max(0.0);
                0.5 * (lambda - m * m)
            }
            Activation::Relu => {
                if x >= 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
        }
    }

    /// The proximal operator `h(z)` (Table 7.1's right column).
    pub fn prox(&self, z: f64) -> f64 {
        let a = z.abs();
        let s = z.signum();
        match *self {
            Activation::L0 { lambda } => {
                if a >= (2.0 * lambda).sqrt() {
                    z
                } else {
                    0.0
                }
            }
            Activation::L1 { lambda } => s * (a - lambda).max(0.0),
            Activation::Mcp { lambda, gamma } => {
                if a > gamma * lambda {
                    z
                } else if a > lambda {
                    s * (a - lambda) / (1.0 - 1.0 / gamma)
                } else {
                    0.0
                }
            }
            Activation::CappedL1 { lambda, gamma } => capped_l1(z, lambda, gamma).0,
            Activation::Scad { lambda, gamma } => {
                if a > gamma * lambda {
                    z
                } else if a > 2.0 * lambda {
                    ((gamma - 1.0) * z - s * gamma * lambda) / (gamma - 2.0)
                } else {
                    s * (a - lambda).max(0.0)
                }
            }
            Activation::Mcp0 { lambda } => {
                if a >= lambda.sqrt() {
                    z
                } else {
                    0.0
                }
            }
            Activation::Relu => z.max(0.0),
        }
    }

    /// The derivative `h'(z)` of the proximal operator, where it exists (almost everywhere; at a
    /// threshold the right-hand value for `z > 0`): the slope of each piece of Table 7.1's right
    /// column, `0` where `h` is zero or constant, `1` where `h(z) = z - const`, and MCP's
    /// `gamma / (gamma - 1)` and SCAD's `(gamma - 1) / (gamma - 2)` on their middle pieces. The
    /// backward pass of a layer ([`super::NokLayer::step_injected_vjp`]) multiplies by it.
    pub fn prox_derivative(&self, z: f64) -> f64 {
        let a = z.abs();
        let on = |c: bool| if c { 1.0 } else { 0.0 };
        match *self {
            Activation::L0 { lambda } => on(a >= (2.0 * lambda).sqrt()),
            Activation::L1 { lambda } => on(a > lambda),
            Activation::Mcp { lambda, gamma } => {
                if a > gamma * lambda {
                    1.0
                } else if a > lambda {
                    gamma / (gamma - 1.0)
                } else {
                    0.0
                }
            }
            Activation::CappedL1 { lambda, gamma } => {
                // x1 = sign(z) max(|z|, gamma) has slope 1 where |z| > gamma; x2 = sign(z)
                // min(gamma, (|z| - lambda)_+) has slope 1 on lambda < |z| < gamma + lambda.
                if capped_l1(z, lambda, gamma).1 { on(a > gamma) } else { on(a > lambda && a < gamma + lambda) }
            }
            Activation::Scad { lambda, gamma } => {
                if a > gamma * lambda {
                    1.0
                } else if a > 2.0 * lambda {
                    (gamma - 1.0) / (gamma - 2.0)
                } else {
                    on(a > lambda)
                }
            }
            Activation::Mcp0 { lambda } => on(a >= lambda.sqrt()),
            Activation::Relu => on(z > 0.0),
        }
    }
}

/// Capped l1's proximal point: the better of the candidates `x1 = sign(z) max(|z|, gamma)` (the
/// minimizer over `|x| >= gamma`, the errata's reconstruction) and `x2 = sign(z) min(gamma,
/// (|z| - lambda)_+)`, and whether it is `x1`.
fn capped_l1(z: f64, lambda: f64, gamma: f64) -> (f64, bool) {
    let (a, s) = (z.abs(), z.signum());
    let x1 = s * a.max(gamma);
    let x2 = s * gamma.min((a - lambda).max(0.0));
    let q = |x: f64| 0.5 * (x - z) * (x - z) + lambda * x.abs().min(gamma);
    if q(x1) <= q(x2) { (x1, true) } else { (x2, false) }
}
