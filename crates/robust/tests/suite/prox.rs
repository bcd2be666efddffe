//! Table 7.1's proximal operators: each `h(z)` is the minimizer of `1/2 (x - z)^2 + phi(x)`,
//! checked against a dense search over `x`; Thm 21's growth condition `|h(z)| <= |z|`; bad
//! parameters name themselves.

use gradfree_robust::nok::{ACTIVATION_NAMES, Activation};

fn q(a: &Activation, x: f64, z: f64) -> f64 {
    0.5 * (x - z) * (x - z) + a.phi(x)
}

fn activations() -> Vec<Activation> {
    let mut out = Vec::new();
    for lambda in [0.1, 0.5, 1.3] {
        out.extend([
            Activation::L0 { lambda },
            Activation::L1 { lambda },
            Activation::Mcp { lambda, gamma: 1.5 },
            Activation::Mcp { lambda, gamma: 3.0 },
            Activation::CappedL1 { lambda, gamma: 0.3 },
            Activation::CappedL1 { lambda, gamma: 2.0 },
            Activation::Scad { lambda, gamma: 2.5 },
            Activation::Scad { lambda, gamma: 3.7 },
            Activation::Mcp0 { lambda },
        ]);
    }
    out.push(Activation::Relu);
    out
}

#[test]
fn prox_is_the_argmin_of_its_objective() {
    // x on a grid of step 2e-4 over [-6, 6], plus x = z and x = 0 exactly (the thresholds' values).
    let grid: Vec<f64> = (-30_000..=30_000).map(|i| i as f64 * 2e-4).collect();
    for a in activations() {
        for k in -50..=50 {
            let z = k as f64 * 0.1 + 0.013;
            let h = a.prox(z);
            let best = grid.iter().chain([z, 0.0].iter()).map(|&x| q(&a, x, z)).fold(f64::INFINITY, f64::min);
            let got = q(&a, h, z);
            assert!(got <= best + 1e-7, "{a:?} at z = {z}: h = {h} gives {got}, the search finds {best}");
            assert!(h.abs() <= z.abs() + 1e-12, "{a:?}: |h({z})| = {} > |z|", h.abs());
        }
    }
}

#[test]
fn closed_forms_at_known_points() {
    let l1 = Activation::L1 { lambda: 0.5 };
    assert_eq!((l1.prox(2.0), l1.prox(-0.3), l1.prox(-1.0)), (1.5, 0.0, -0.5));
    let l0 = Activation::L0 { lambda: 0.5 };
    assert_eq!((l0.prox(0.99), l0.prox(1.0), l0.phi(0.0), l0.phi(-3.0)), (0.0, 1.0, 0.0, 0.5));
    // SCAD and MCP are continuous, equal to z past gamma lambda, with phi constant there.
    let scad = Activation::Scad { lambda: 1.0, gamma: 3.7 };
    assert!((scad.prox(3.7) - 3.7).abs() < 1e-12 && (scad.prox(2.0) - 1.0).abs() < 1e-12);
    assert!((scad.phi(10.0) - 4.7 / 2.0).abs() < 1e-12 && (scad.phi(3.7) - 4.7 / 2.0).abs() < 1e-12);
    let mcp = Activation::Mcp { lambda: 1.0, gamma: 3.0 };
    assert!((mcp.prox(3.0) - 3.0).abs() < 1e-12 && (mcp.phi(3.0) - 1.5).abs() < 1e-12);
    assert_eq!(Activation::Relu.prox(-2.0), 0.0);
    assert!(Activation::Relu.phi(-1e-9).is_infinite());
}

#[test]
fn bad_parameters_name_themselves() {
    for name in ACTIVATION_NAMES {
        if *name != "relu" {
            let e = Activation::from_name(name, 0.0, None).unwrap_err().to_string();
            assert!(e.contains("lambda"), "{e}");
        }
    }
    assert!(Activation::from_name("mcp", 1.0, Some(1.0)).unwrap_err().to_string().contains("gamma"));
    assert!(Activation::from_name("scad", 1.0, Some(2.0)).unwrap_err().to_string().contains("gamma"));
    assert!(Activation::from_name("l1", f64::NAN, None).unwrap_err().to_string().contains("lambda"));
    assert!(Activation::from_name("tanh", 1.0, None).unwrap_err().to_string().contains("activation"));
}

#[test]
fn prox_derivative_is_the_slope_of_prox() {
    // Central differences of h away from its kinks and jumps (a point within 1e-4 of a
    // breakpoint would straddle it: the grid's offset keeps every z away from them).
    let h = 1e-7;
    for a in activations() {
        for k in -50..=50 {
            let z = k as f64 * 0.1 + 0.0137;
            let fd = (a.prox(z + h) - a.prox(z - h)) / (2.0 * h);
            let left = a.prox_derivative(z - 1e-4);
            let right = a.prox_derivative(z + 1e-4);
            if left != right {
                continue; // a breakpoint within 1e-4 of z
            }
            let got = a.prox_derivative(z);
            assert!((got - fd).abs() < 1e-5, "{a:?} at z = {z}: h'(z) = {got}, finite differences {fd}");
        }
    }
    // The pieces' slopes in closed form.
    assert_eq!(Activation::Mcp { lambda: 1.0, gamma: 3.0 }.prox_derivative(2.0), 1.5);
    assert!((Activation::Scad { lambda: 1.0, gamma: 3.7 }.prox_derivative(3.0) - 2.7 / 1.7).abs() < 1e-15);
    assert_eq!(Activation::L1 { lambda: 1.0 }.prox_derivative(-0.5), 0.0);
    assert_eq!(Activation::Relu.prox_derivative(0.5), 1.0);
}
