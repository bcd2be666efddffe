//! The benchmark functions of thesis Tables 3.1 and 4.4, MiNES Table 1 and thesis sec. 3.7.3:
//! a table of formulas, domains, minimizers and the check f(x*) = f*, and a figure of their 2-D
//! landscapes.

use gradfree_problems::{Problem, build, list};

use crate::{Ctx, Figure, Heatmap, Report, Result, Table, fmt};

fn minimizer_summary(x: &[f64]) -> String {
    let all_same = x.iter().all(|v| *v == x[0]);
    if all_same {
        format!("({}, ..., {})", fmt(x[0]), fmt(x[0]))
    } else {
        format!("({}, {}, ..., {})", fmt(x[0]), fmt(x[1]), fmt(x[x.len() - 1]))
    }
}

/// Runs the experiment of the module documentation.
pub fn run(ctx: &Ctx) -> Result<Report> {
    let mut table = Table::new(
        "Benchmark functions: domain, minimizer, f* and f(x*) evaluated in d = 6 and d = 100 (thesis Table 4.4 uses d = 6, Table 3.1 d = 100)",
        "test_functions",
        &["function", "source", "domain", "x* (d = 100)", "f*", "f(x*) d=6", "f(x*) d=100", "f(0.5*1) d=100", "formula"],
    );
    for spec in list().iter().filter(|s| s.name != "failing-sphere" && gradfree_problems::fixed_dimension(s.name).is_none()) {
        let p100 = build(spec.name, 100, ctx.seed)?;
        let p6 = build(spec.name, 6, ctx.seed)?;
        let domain = p100.domain().map_or("R^d".to_string(), |b| format!("[{}, {}]^d", b.lower()[0], b.upper()[0]));
        let (xs, fstar, f6, f100) = match (p100.minimizer(), p100.minimum()) {
            (Some(x), Some(f)) => {
                let x6 = p6.minimizer().expect("same problem family");
                (minimizer_summary(&x), fmt(f), fmt(p6.eval(&x6)), fmt(p100.eval(&x)))
            }
            _ => ("no closed form".into(), "-".into(), "-".into(), "-".into()),
        };
        table.push(vec![
            spec.name.into(),
            p100.source().into(),
            domain,
            xs,
            fstar,
            f6,
            f100,
            fmt(p100.eval(&[0.5; 100])),
            p100.formula().into(),
        ]);
    }

    // 2-D landscapes: log10(f - f* + 1e-3) on each function's domain ([-2, 2]^2 when unbounded).
    let n = if ctx.quick { 60 } else { 150 };
    let names = [
        "ellipsoid",
        "discus",
        "l1-ellipsoid",
        "lhalf-ellipsoid",
        "levy",
        "rastrigin10",
        "rosenbrock",
        "nesterov",
        "different-powers",
        "dixon-price",
        "ackley",
        "ssphere",
    ];
    let mut panels = Vec::new();
    for name in names {
        let p: Box<dyn Problem> = build(name, 2, ctx.seed)?;
        let (lo, hi) = p.domain().map_or((-2.0, 2.0), |b| (b.lower()[0], b.upper()[0]));
        let h = (hi - lo) / n as f64;
        let fstar = p.minimum().unwrap_or(0.0);
        let mut values = Vec::with_capacity(n * n);
        for i in 0..n {
            for j in 0..n {
                let x = [lo + (j as f64 + 0.5) * h, lo + (i as f64 + 0.5) * h];
                values.push((p.eval(&x) - fstar + 1e-3).log10());
            }
        }
        panels.push(Heatmap { title: name.to_string(), lo, hi, values, n });
    }
    let figure =
        Figure::Heatmaps { file: "landscapes.png".into(), title: "log10(f - f* + 1e-3), d = 2 (dark = low)".into(), panels, cols: 4 };
    Ok(Report {
        tables: vec![table],
        figures: vec![figure],
        notes: vec![
            "Discus uses 10^6 x_1^2 (the thesis prints x_1, which is unbounded below).".into(),
            "Nesterov is the nonsmooth Chebyshev-Rosenbrock |x_1-1|/4 + sum |x_{i+1} - 2|x_i| + 1| (bars lost in the thesis text).".into(),
            "quadratic: the eigenvalues of A are log-spaced in [1, 2306] with a Haar-random basis (MiNES does not say how A was built)."
                .into(),
        ],
    })
}
